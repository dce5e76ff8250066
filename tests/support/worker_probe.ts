/**
 * Started in place of the query worker, with the pool's own arguments and environment: reports
 * what the worker process may do. It opens the database through the worker's own engine, so a
 * permission the worker needs but lacks fails here too.
 */
import { openLocal } from "../../src/browse/sql/local.ts";
import { getHeapStatistics } from "node:v8";
import { frameJson, FrameReader } from "../../src/browse/pool/protocol.ts";

async function attempt(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return "allowed";
  } catch (error) {
    return (error as Error).name;
  }
}

// The first frame, as the worker gets it: the config, here with `outside`, a file to try.
const reader = new FrameReader(Deno.stdin.readable);
const config = frameJson<{ database: string; outside: string }>((await reader.read())!);
const db = openLocal(config.database, false);
const rows = await db.all("SELECT count(*) AS n FROM items");
db.close();
const dir = config.database.replace(/\/[^/]*$/, "");
const state = async (desc: Deno.PermissionDescriptor) => (await Deno.permissions.query(desc)).state;
const report = {
  rows: rows.map((r) => r.map(Number)),
  heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024),
  readOutside: await attempt(() => Deno.readTextFile(config.outside)),
  readDatabase: await attempt(() => Deno.readFile(config.database)),
  readPasswd: await attempt(() => Deno.readTextFile("/etc/passwd")),
  writeDir: await attempt(() => Deno.writeTextFile(`${dir}/probe.txt`, "x")),
  run: await attempt(() => new Deno.Command("true").output()),
  net: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 9 })),
  env: await attempt(() => Promise.resolve(Deno.env.get("HOME"))),
  permissions: {
    read: await state({ name: "read" }),
    write: await state({ name: "write" }),
    net: await state({ name: "net" }),
    run: await state({ name: "run" }),
    env: await state({ name: "env" }),
    ffi: await state({ name: "ffi" }),
    sys: await state({ name: "sys" }),
  },
};
await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(report)));
