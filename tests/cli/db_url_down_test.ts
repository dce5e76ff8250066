/**
 * browse on a libSQL server that is down: checked at start (one line naming the server and the
 * failure, exit 1, not a server answering every call 400 "fetch failed"); a server that goes
 * down later makes each call 503 with the same line, and one back up answers again. The real
 * CLI and libSQL's Hrana test server.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { runCli } from "../support/cli.ts";
import { startBrowseProcess } from "../support/browse_process.ts";
import { hranaMissing, startHrana } from "../support/hrana_server.ts";

const missing = hranaMissing();

async function query(base: string, sql: string) {
  const res = await fetch(new URL("/api/query", base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: sql }),
  });
  return { status: res.status, body: await res.json() as { error?: string; rows?: unknown } };
}

Deno.test({
  name: "browse: a libSQL server down at start is one line, exit 1; down later, 503",
  ignore: missing !== null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "browse_db_down_" });
    const db = `${dir}/state.db`;
    const made = await new Deno.Command("sqlite3", { args: [db, "CREATE TABLE t (a)"] }).output();
    assert.ok(made.success);
    let server = await startHrana(db);
    const url = `http://127.0.0.1:${server.port}`;
    try {
      const running = await startBrowseProcess([url]);
      try {
        assert.equal((await query(running.url, "SELECT count(*) FROM t")).status, 200);
        await server.stop();
        const down = await query(running.url, "SELECT count(*) FROM t");
        assert.deepEqual([down.status, down.body.error], [
          503,
          `cannot reach the libSQL server at ${url}: connection refused`,
        ]);
        server = await startHrana(db, { port: server.port });
        const back = await query(running.url, "SELECT count(*) FROM t");
        assert.equal(back.status, 200, JSON.stringify(back.body));
      } finally {
        await running.stop();
      }
      await server.stop();
      const r = await runCli(["browse", url, "--port", "0"]);
      assert.deepEqual([r.code, r.stderr], [
        1,
        `courier browse: cannot reach the libSQL server at ${url}: connection refused\n`,
      ]);
    } finally {
      await server.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("once and status name a db_url server that cannot be reached, and the failure", async () => {
  const dir = await Deno.makeTempDir({ prefix: "db_url_down_" });
  try {
    // A port nothing listens on: taken from the OS, then let go.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
    listener.close();
    const config = `${dir}/config.yml`;
    await Deno.writeTextFile(
      config,
      stringify({
        messenger_auth_token: "123456:TEST-token_abc",
        db_url: url,
        feeds: [{ name: "f", channel: "@c", url: `${url}/x`, cron: "* * * * *", type: "rss" }],
      }),
    );
    for (const command of ["once", "status"]) {
      const r = await runCli([command, "-c", config]);
      assert.deepEqual([r.code, r.stderr], [
        1,
        `courier ${command}: cannot reach the libSQL server at ${url}: connection refused\n`,
      ]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
