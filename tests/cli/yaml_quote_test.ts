/**
 * A quote never closed is reported where it opened (file:line:col of the quote), not where the
 * YAML parser gave up, often the end of the file. The real CLI's validate.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";

const TOP = 'messenger_auth_token: "123:abc_DEF"\nfeeds:\n';
const FEED = (channel: string, cron = '"* * * * *"') =>
  `  - name: f\n    channel: ${channel}\n    url: http://127.0.0.1:9/x\n    cron: ${cron}\n` +
  "    type: rss\n";

Deno.test("validate: an unclosed quote is reported where it opened", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cases: [string, string][] = [
      // In the middle of the file, a later quote on another line.
      [TOP + FEED('"@chan') + FEED('"@other'), '4:14: invalid YAML: missing closing "quote'],
      // The last quoted value: the parser reaches the end of the file.
      [TOP + FEED('"@chan"', '"* * * * *'), '6:11: invalid YAML: missing closing "quote'],
      // Single quotes, and an escaped double quote inside the value.
      [TOP + FEED("'@chan"), "4:14: invalid YAML: missing closing 'quote"],
      [TOP + FEED('"@ch\\"an'), '4:14: invalid YAML: missing closing "quote'],
      // In a flow list.
      [
        TOP +
        FEED('"@chan"').replace("url: http://127.0.0.1:9/x", 'url: ["http://a/x", "http://b/y]'),
        '5:25: invalid YAML: missing closing "quote',
      ],
    ];
    for (const [text, where] of cases) {
      await Deno.writeTextFile(`${dir}/c.yml`, text);
      const r = await runCli(["validate", "-c", `${dir}/c.yml`]);
      assert.equal(r.code, 2, text);
      const first = r.stderr.split("\n")[0];
      assert.equal(first, `${dir}/c.yml:${where}`, `${text}\n${r.stderr}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
