import assert from "node:assert/strict";
import { Store } from "../../src/store/db.ts";
import { describeFailure, sqliteCode, StoreError } from "../../src/store/failure.ts";
import { dbPath } from "../../src/store/location.ts";
import { Database } from "../../src/store/sqlite.ts";
import { storeEntry } from "../support/store_records.ts";

Deno.test("describeFailure: SQLite's own failures in words", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A real SQLITE_FULL: SQLite's page limit stands in for the disk (the CLI test fills a real
    // tmpfs; this one runs anywhere).
    const full = Database.open(`${dir}/full.db`);
    await full.execute("PRAGMA max_page_count = 3");
    await full.execute("CREATE TABLE t (x)");
    const error = await full.execute("INSERT INTO t VALUES (randomblob(100000))").then(
      () => null,
      (e) => e,
    );
    full.close();
    assert.equal(sqliteCode(error), "SQLITE_FULL");
    assert.equal(describeFailure(error), "disk full");

    await Deno.writeTextFile(`${dir}/junk.db`, "not a database ".repeat(500));
    const junk = Database.open(`${dir}/junk.db`);
    const notDb = await junk.execute("SELECT * FROM sqlite_master").then(() => null, (e) => e);
    junk.close();
    assert.equal(describeFailure(notDb), "the file is not an SQLite database");

    // Not SQLite's: the message's first line, as it is.
    assert.equal(describeFailure(new Error("boom\nmore")), "boom");
    assert.equal(sqliteCode(new Error("SQLITE_FULL: looks like it")), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("describeFailure: an I/O error (a write past a file size limit) says what it may be", () => {
  // SQLite turns EFBIG (RLIMIT_FSIZE) and other failed writes into SQLITE_IOERR_WRITE;
  // src/store/sqlite.ts passes it on in this shape.
  const error = Object.assign(new Error("SQLITE_IOERR_WRITE: disk I/O error"), {
    code: "SQLITE_IOERR",
    extendedCode: "SQLITE_IOERR_WRITE",
  });
  assert.equal(
    describeFailure(error),
    "disk I/O error (SQLITE_IOERR_WRITE; is the disk full or a file size limit reached?)",
  );
});

Deno.test("a store's failures name the step and the file, and keep SQLite's code", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = (await Store.open(dir))!;
    try {
      // The store's own connection may grow the file no further: the next write that needs a
      // page meets SQLITE_FULL, as on a full disk.
      const [[pages]] = await store.query("PRAGMA page_count");
      await store.query(`PRAGMA max_page_count = ${Number(pages)}`);
      const big = { ...storeEntry("a"), title: "x".repeat(20_000) };
      await assert.rejects(store.markSent("news", big, "@c", 1, new Date()), (e: Error) => {
        assert.ok(e instanceof StoreError);
        assert.equal(e.code, "SQLITE_FULL");
        assert.equal(e.message, `cannot record a sent message in ${dbPath(dir)}: disk full`);
        return true;
      });
      await assert.rejects(
        store.recordFirstSighting("news", [big], new Date()),
        new RegExp(`^StoreError: cannot record a first sighting in .*courier\\.db: disk full$`),
      );
    } finally {
      store.close();
    }

    await Deno.mkdir(`${dir}/junk`);
    await Deno.writeTextFile(`${dir}/junk/courier.db`, "junk ".repeat(1000));
    await assert.rejects(Store.open(`${dir}/junk`), (e: Error) => {
      assert.ok(e instanceof StoreError);
      assert.equal(e.code, "SQLITE_NOTADB");
      assert.equal(
        e.message,
        `cannot open ${dir}/junk/courier.db: the file is not an SQLite database`,
      );
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
