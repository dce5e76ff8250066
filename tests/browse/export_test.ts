import assert from "node:assert/strict";
import Database from "npm:libsql@0.5.29";
import { api, fileHash, startTestBrowser } from "../support/browse_fixtures.ts";
import {
  type BrowseProcess,
  childPids,
  rss,
  startBrowseProcess,
} from "../support/browse_process.ts";

const ROWS = 200_000;
const MB = 1024 * 1024;
/** How much a download may raise a process's resident memory, whatever the output's size. */
const BOUND = 64 * MB;
/** Each download is several times the bound, so memory that grew with the output would fail. */
const MIN_OUTPUT = 150 * MB;

/** 200k rows of about 830 bytes: a CSV of about 170 MB. */
async function bigDb(): Promise<string> {
  const path = `${await Deno.makeTempDir({ prefix: "browse_export_" })}/big.db`;
  const db = new Database(path);
  db.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, label TEXT, note TEXT);
    INSERT INTO big SELECT value, 'row "' || value || '", ok', printf('%.800c', 'x')
    FROM generate_series(1, ${ROWS});`);
  db.close();
  return path;
}

function queryUrl(server: BrowseProcess, format: string, sql: string): URL {
  return new URL(`/api/query?format=${format}&query=${encodeURIComponent(sql)}`, server.url);
}

/**
 * Downloads the whole table as `format`, reading it as it comes (the test holds no copy):
 * its headers, size, how often `marker` occurs, its first and last characters.
 */
async function download(server: BrowseProcess, format: string, marker: string) {
  const res = await fetch(queryUrl(server, format, "SELECT * FROM big"));
  assert.equal(res.status, 200);
  const byte = marker.charCodeAt(0);
  let bytes = 0;
  let count = 0;
  let first: Uint8Array | undefined;
  let last = new Uint8Array(0);
  for await (const chunk of res.body!) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(byte); i !== -1; i = chunk.indexOf(byte, i + 1)) count++;
    first ??= chunk.slice(0, 300);
    last = chunk.length >= 1000 ? chunk.slice(-1000) : Uint8Array.from([...last, ...chunk]);
  }
  const decoder = new TextDecoder();
  return {
    headers: res.headers,
    bytes,
    count,
    head: decoder.decode(first),
    tail: decoder.decode(last.slice(-1000)),
  };
}

Deno.test("downloads: 200k-row CSV, JSON and XML exports (150+ MB each) keep server and worker memory bounded", async () => {
  const path = await bigDb();
  const before = await fileHash(path);
  const server = await startBrowseProcess([path, "--timeout", "120s"]);
  try {
    const workers = childPids(server.pid);
    assert.ok(workers.length >= 2, "the server runs worker processes");
    // One small download of each format first: loading code and warming up are not growth.
    for (const format of ["csv", "json", "xml"]) {
      const res = await fetch(queryUrl(server, format, "SELECT * FROM big LIMIT 10"));
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    const server0 = rss(server.pid);
    const workers0 = workers.map(rss);

    const csv = await download(server, "csv", "\n");
    assert.match(csv.headers.get("content-type") ?? "", /text\/csv/);
    assert.match(
      csv.headers.get("content-disposition") ?? "",
      /attachment; filename="result\.csv"/,
    );
    assert.equal(csv.count, ROWS + 1, "header plus every row");
    assert.ok(csv.head.startsWith('id,label,note\r\n1,"row ""1"", ok",xxx'), csv.head.slice(0, 60));
    assert.ok(csv.tail.endsWith(`\r\n${ROWS},"row ""${ROWS}"", ok",${"x".repeat(800)}\r\n`));

    const json = await download(server, "json", "[");
    assert.match(json.headers.get("content-disposition") ?? "", /filename="result\.json"/);
    assert.equal(json.count, ROWS + 2, "the columns, the rows, and one array per row");
    assert.ok(
      json.head.startsWith('{"columns":["id","label","note"],"rows":[[1,"row \\"1\\", ok","xxx'),
      json.head.slice(0, 60),
    );
    assert.match(
      json.tail,
      new RegExp(`\\],"stats":\\{"rows":${ROWS},.*\\},"truncated":false\\}$`),
    );

    const xml = await download(server, "xml", "\n");
    assert.match(xml.headers.get("content-type") ?? "", /application\/xml/);
    assert.equal(xml.count, ROWS + 3, "declaration, columns, every row, end");
    assert.ok(
      xml.head.includes(
        '<row><value column="id">1</value><value column="label">row &quot;1&quot;, ok</value>',
      ),
      xml.head,
    );
    assert.ok(xml.tail.endsWith("</value></row>\n</result>\n"), xml.tail);

    const sizes = [csv, json, xml].map((d) => `${Math.round(d.bytes / MB)} MB`).join(", ");
    for (const d of [csv, json, xml]) assert.ok(d.bytes >= MIN_OUTPUT, `outputs: ${sizes}`);
    const server1 = rss(server.pid);
    const serverPeak = server1.peak - server0.peak;
    const serverNow = server1.now - server0.now;
    const workerPeak = Math.max(...workers.map((pid, i) => rss(pid).peak - workers0[i].peak));
    const mb = (n: number) => `${Math.round(n / MB)} MB`;
    const measured =
      `server peak +${mb(serverPeak)}, now +${mb(serverNow)}; worker peak +${mb(workerPeak)}; ` +
      `downloads of ${sizes}`;
    assert.ok(serverPeak < BOUND, measured);
    assert.ok(serverNow < BOUND, measured);
    assert.ok(workerPeak < BOUND, measured);
    // Not capped by --max-rows, and recorded in the history with its row count.
    const history = await (await fetch(new URL("/api/history", server.url))).json();
    assert.equal(history.at(-1)?.rows, ROWS);
  } finally {
    await server.stop();
  }
  assert.equal(await fileHash(path), before);
});

Deno.test("downloads: json and xml formats, escaping, big integers and blobs", async () => {
  const path = `${await Deno.makeTempDir({ prefix: "browse_export_" })}/small.db`;
  const db = new Database(path);
  db.exec(`CREATE TABLE t (a INTEGER, "b<&>" TEXT, c BLOB);
    INSERT INTO t VALUES (9007199254740993, '<x & "y">', x'0102'), (1, NULL, NULL);`);
  db.close();
  const b = await startTestBrowser(path);
  try {
    const q = encodeURIComponent("SELECT * FROM t ORDER BY a DESC");
    const json = await api(b, `/api/query?format=json&query=${q}`);
    assert.equal(json.status, 200);
    assert.match(json.headers.get("content-disposition") ?? "", /result\.json/);
    const body = json.body as { columns: string[]; rows: unknown[][]; truncated: boolean };
    assert.deepEqual(body.columns, ["a", "b<&>", "c"]);
    assert.deepEqual(body.rows, [
      ["9007199254740993", '<x & "y">', { $base64: true, encoded: "AQI=" }],
      [1, null, null],
    ]);
    const xml = await api(b, `/api/query?format=xml&query=${q}`);
    assert.equal(xml.status, 200);
    assert.match(xml.headers.get("content-type") ?? "", /application\/xml/);
    assert.ok(xml.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
    assert.match(xml.text, /<column>b&lt;&amp;&gt;<\/column>/);
    assert.match(xml.text, /<value column="b&lt;&amp;&gt;">&lt;x &amp; &quot;y&quot;&gt;<\/value>/);
    assert.match(xml.text, /<value column="a">9007199254740993<\/value>/);
    assert.match(xml.text, /<value column="c" encoding="base64">AQI=<\/value>/);
    assert.match(xml.text, /<value column="b&lt;&amp;&gt;" null="true"><\/value>/);
    assert.ok(xml.text.trimEnd().endsWith("</result>"));
    const csv = await api(b, `/api/query?format=csv&query=${q}`);
    assert.equal(csv.text, 'a,b<&>,c\r\n9007199254740993,"<x & ""y"">",AQI=\r\n1,,\r\n');
    const err = await api(b, "/api/query?format=csv&query=SELECT%20*%20FROM%20nope");
    assert.equal(err.status, 400);
    assert.match(err.headers.get("content-type") ?? "", /json/);
  } finally {
    await b.close();
  }
});
