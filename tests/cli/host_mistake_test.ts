/**
 * A mistake the user must fix in the config or on the host exits 2, which the shipped unit
 * (RestartPreventExitStatus=2) and compose file do not restart: a data directory or database
 * directory that cannot be created. Another process holding the directory stays 1 (a retry may
 * work). The real CLI.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";

const TOKEN = "123456:TEST-token_abc";
const FEED = { name: "news", channel: "@c", url: "http://127.0.0.1:9/x", cron: "* * * * *" };

Deno.test("host mistakes: a data_dir or db_dir that cannot be created exits 2, one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A file where a directory should be: fails for root too (no permission is needed).
    await Deno.writeTextFile(`${dir}/file`, "");
    const cases: [Record<string, string>, string][] = [
      [{ data_dir: `${dir}/file/data` }, `cannot create data directory ${dir}/file/data: `],
      [
        { data_dir: `${dir}/data`, db_dir: `${dir}/file/db` },
        `cannot create database directory ${dir}/file/db: `,
      ],
    ];
    for (const [paths, start] of cases) {
      const config = `${dir}/config.yml`;
      await Deno.writeTextFile(
        config,
        stringify({ messenger_auth_token: TOKEN, ...paths, feeds: [{ ...FEED, type: "rss" }] }),
      );
      for (const command of ["once", "forward"]) {
        const r = await runCli([command, "-c", config, "--messenger-api", "http://127.0.0.1:9"]);
        assert.equal(r.code, 2, `${command}: ${r.stderr}`);
        const lines = r.stderr.trim().split("\n");
        assert.equal(lines.length, 1, r.stderr);
        assert.ok(lines[0].includes(`courier ${command}: ${start}`), r.stderr);
        assert.ok(!r.stderr.includes("    at "), "no stack trace");
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
