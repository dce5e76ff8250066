/** Config errors say what is wrong with a secret without printing it. */
import { viewSettings } from "../../src/config/describe.ts";
import { parseSettings } from "../../src/config/load.ts";
import { problems } from "./problems.ts";
import { assert, assertEquals } from "../support/assert.ts";

const SECRET = "SECRETx9";
const FEED =
  '  - {name: a, channel: "@abc", url: "http://127.0.0.1/", cron: "* * * * *", type: rss';

function assertNoSecret(lines: string[], secret = SECRET): void {
  for (const line of lines) assert(!line.includes(secret), `leaks the secret: ${line}`);
}

Deno.test("config secrets: a token written as a YAML number says to quote it, without the value", () => {
  const lines = problems(`messenger_auth_token: 987654321\nfeeds:\n${FEED}}\n`);
  assertEquals(lines, [
    "c.yml:1:23: messenger_auth_token: must be a string (quote it), got a number",
  ]);
  assertNoSecret(lines, "987654321");
  assertEquals(problems(`messenger_auth_token: true\nfeeds:\n${FEED}}\n`), [
    "c.yml:1:23: messenger_auth_token: must be a string (quote it), got a boolean",
  ]);
});

Deno.test("config secrets: no error path echoes the token or a proxy password", () => {
  const cases = [
    // pattern error
    `messenger_auth_token: "987654321-${SECRET}"\nfeeds:\n${FEED}}\n`,
    // misspelt key: the suggestion names the key only
    `messenger_auth_tokn: "987654321:${SECRET}"\nfeeds:\n${FEED}}\n`,
    // a token read as a key
    `feeds:\n${FEED}}\n987654321:${SECRET}: 1\n`,
    // YAML syntax errors on the token's line
    `messenger_auth_token: "987654321:${SECRET}\nfeeds: []\n`,
    `messenger_auth_token: 987654321:${SECRET}: x\nfeeds: []\n`,
    `messenger_auth_token: [987654321:${SECRET}\nfeeds: []\n`,
    // proxies with a password: bad port, bad scheme, unix without a path
    `messenger_auth_token: "1:a"\nproxy: "http://u:${SECRET}@h:99999"\n` +
    `messenger_proxy: "ftp://u:${SECRET}@h"\nfeeds:\n${FEED}, proxy: "socks5://u:${SECRET}@unix"}\n`,
    // a feed URL with a password that is not a valid URL
    `messenger_auth_token: "1:a"\nfeeds:\n${
      FEED.replace('"http://127.0.0.1/"', `"http://u:${SECRET}@a b/f"`)
    }}\n`,
    `messenger_auth_token: "1:a"\nfeeds:\n${
      FEED.replace('"http://127.0.0.1/"', `"ftp://u:${SECRET}@h/f"`)
    }}\n`,
    // a proxy written as a number
    `messenger_auth_token: "1:a"\nproxy: 1080\nfeeds:\n${FEED}}\n`,
  ];
  for (const text of cases) {
    const lines = problems(text);
    assert(lines.length > 0);
    assertNoSecret(lines);
  }
  assertEquals(problems(`feeds:\n${FEED}}\n987654321:${SECRET}: 1\n`), [
    "c.yml:1:1: messenger_auth_token: missing required key " +
    "(or messenger_auth_token_file, or $COURIER_MESSENGER_AUTH_TOKEN(_FILE))",
    "c.yml:3:1: [redacted]: unknown key (a token belongs under messenger_auth_token, quoted)",
  ]);
  assertEquals(
    problems(`messenger_auth_token: "1:a"\nproxy: 1080\nfeeds:\n${FEED}}\n`),
    ["c.yml:2:8: proxy: must be a string (quote it), got a number"],
  );
});

Deno.test("config secrets: the settings shown by validate hide a feed URL's and a proxy's password", () => {
  const settings = parseSettings(
    `messenger_auth_token: "987654321:${SECRET}"\nproxy: "socks5://u:${SECRET}@127.0.0.1:1080"\n` +
      `feeds:\n${FEED.replace('"http://127.0.0.1/"', `"https://u:${SECRET}@127.0.0.1/f"`)}}\n`,
    "c.yml",
    "/tmp",
  );
  const view = viewSettings(settings, new Date(0));
  assertNoSecret([JSON.stringify(view)]);
  assertEquals(view.feeds[0].url, ["https://u:***@127.0.0.1/f"]);
  assertEquals(view.feeds[0].proxy, "socks5://u:***@127.0.0.1:1080");
});
