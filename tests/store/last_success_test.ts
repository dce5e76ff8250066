import assert from "node:assert/strict";
import { parse } from "../support/yaml.ts";
import {
  LastSuccessError,
  LastSuccessFile,
  readLastSuccess,
} from "../../src/store/last_success.ts";
import { ManualClock } from "../support/manual_clock.ts";

Deno.test("record keeps other feeds' times and leaves no temp files", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/state/last_success.yml`;
  await Deno.mkdir(`${dir}/state`);
  await Deno.writeTextFile(path, "old: 2023-01-01T00:00:00Z\nnews: 2023-01-02T00:00:00Z\n");
  const file = new LastSuccessFile(path);
  await file.record("news", new Date("2024-05-01T12:00:00Z"));
  const doc = parse(await Deno.readTextFile(path));
  assert.deepEqual(doc, { old: "2023-01-01T00:00:00Z", news: "2024-05-01T12:00:00Z" });
  const names = [];
  for await (const e of Deno.readDir(`${dir}/state`)) names.push(e.name);
  assert.deepEqual(names, ["last_success.yml"]);
});

Deno.test("concurrent records all land, and each waits for its own write", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/last.yml`;
  const file = new LastSuccessFile(path);
  const at = new Date("2024-05-01T12:00:00Z");
  await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      await file.record(`feed${i}`, at);
      // Once resolved, this feed's line must be on disk.
      const now = await readLastSuccess(path);
      assert.equal(now.get(`feed${i}`)?.toISOString(), at.toISOString());
    }),
  );
  assert.equal((await readLastSuccess(path)).size, 50);
});

Deno.test("readLastSuccess: missing file is empty, garbage values are ignored", async () => {
  const dir = await Deno.makeTempDir();
  assert.equal((await readLastSuccess(`${dir}/none.yml`)).size, 0);
  await Deno.writeTextFile(`${dir}/x.yml`, "a: 2024-01-01T00:00:00Z\nb: not a time\n");
  const map = await readLastSuccess(`${dir}/x.yml`);
  assert.deepEqual([...map.keys()], ["a"]);
  await Deno.writeTextFile(`${dir}/bad.yml`, "a: [unclosed\n");
  await assert.rejects(readLastSuccess(`${dir}/bad.yml`), LastSuccessError);
});

Deno.test("a write into an unwritable place fails with the path", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/file`, "");
  const file = new LastSuccessFile(`${dir}/file/last.yml`);
  await assert.rejects(file.record("a", new Date()), (e: Error) => {
    assert.ok(e instanceof LastSuccessError);
    assert.ok(e.message.includes(`${dir}/file/last.yml`));
    return true;
  });
});

Deno.test("feed names that YAML would read as other types come back as names", async () => {
  const dir = await Deno.makeTempDir();
  const file = new LastSuccessFile(`${dir}/l.yml`);
  const at = new Date("2024-05-01T12:00:00Z");
  for (const name of ["true", "null", "1e3", "0x1f", "a.b-c_d"]) await file.record(name, at);
  const back = await readLastSuccess(`${dir}/l.yml`);
  assert.deepEqual([...back.keys()], ["true", "null", "1e3", "0x1f", "a.b-c_d"]);
  assert.deepEqual(parse(await Deno.readTextFile(`${dir}/l.yml`))["1e3"], "2024-05-01T12:00:00Z");
});

Deno.test("the first write removes temp files a killed writer left, and nothing else", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/last_success.yml`;
  const dead = Deno.pid + 1;
  const stale = [`.last_success.yml.${dead}.0a1b2c3d.tmp`, `.last_success.yml.1.deadbeef.tmp`];
  const kept = [".other.yml.7.0a1b2c3d.tmp", "last_success.yml.bak", ".last_success.yml.x.tmp"];
  for (const name of [...stale, ...kept]) await Deno.writeTextFile(`${dir}/${name}`, "x");
  await new LastSuccessFile(path).record("news", new Date("2024-05-01T12:00:00Z"));
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  assert.deepEqual(names, [...kept, "last_success.yml"].sort());
  assert.deepEqual(
    await readLastSuccess(path),
    new Map([["news", new Date("2024-05-01T12:00:00Z")]]),
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("flush waits for the writes under way and leaves the newest file in place", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/last.yml`;
  const file = new LastSuccessFile(path);
  await file.flush(); // nothing written yet: nothing to do, and no file appears
  await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
  const at = new Date("2024-05-01T12:00:00Z");
  const records = Array.from({ length: 20 }, (_, i) => file.record(`feed${i}`, at));
  await file.flush();
  assert.equal((await readLastSuccess(path)).size, 20);
  await Promise.all(records);
});

Deno.test("flush fails with the path when the file cannot be made durable", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/sub/last.yml`;
  const file = new LastSuccessFile(path);
  await file.record("a", new Date());
  await Deno.remove(`${dir}/sub`, { recursive: true });
  await assert.rejects(file.flush(), (e: Error) => {
    assert.ok(e instanceof LastSuccessError);
    assert.ok(e.message.includes(path));
    return true;
  });
});

Deno.test("records within the spacing wait for the next write; writeNow and flush do not", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/last.yml`;
  // Writes an hour apart: only writeNow and flush can get a second one out.
  const file = new LastSuccessFile(path, { spacingMs: 3_600_000 });
  const at = new Date("2024-05-01T12:00:00Z");
  await file.record("a", at); // the first write goes at once
  const b = file.record("b", at);
  const c = file.record("c", at);
  assert.deepEqual([...(await readLastSuccess(path)).keys()], ["a"]);
  file.writeNow();
  await Promise.all([b, c]);
  assert.deepEqual([...(await readLastSuccess(path)).keys()], ["a", "b", "c"]);
  const d = file.record("d", at);
  await file.flush();
  assert.deepEqual([...(await readLastSuccess(path)).keys()], ["a", "b", "c", "d"]);
  await d;
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the coalescing timer runs on the injected clock", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const clock = new ManualClock();
    const path = `${dir}/last.yml`;
    const file = new LastSuccessFile(path, { clock, spacingMs: 1000 });
    await file.record("a", new Date("2024-05-01T12:00:00Z"));
    let second = false;
    const b = file.record("b", new Date("2024-05-01T12:00:01Z")).then(() => (second = true));
    assert.equal(clock.pending, 1, "b waits for its slot");
    await clock.advance(999);
    assert.equal(second, false);
    assert.deepEqual([...(await readLastSuccess(path)).keys()], ["a"]);
    await clock.advance(1);
    await b;
    assert.deepEqual([...(await readLastSuccess(path)).keys()], ["a", "b"]);
    await file.flush();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a syntax error in the file is one whole line: file:line:col and what is wrong", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/last.yml`;
    // Line 2, column 7 (the second colon): a second mapping on one line, as a hand edit might
    // leave it. js-yaml's own message goes on with a code frame on the next lines.
    await Deno.writeTextFile(path, '"a": 2024-01-01T00:00:00Z\n"b": x: 2024-01-02T00:00:00Z\n');
    await assert.rejects(readLastSuccess(path), (e: Error) => {
      assert.ok(e instanceof LastSuccessError);
      assert.equal(
        e.message,
        `${path}:2:7: cannot parse the last-success file: bad indentation of a mapping entry`,
      );
      return true;
    });
    await Deno.writeTextFile(path, '"a": [2024-01-01T00:00:00Z\n');
    await assert.rejects(readLastSuccess(path), (e: Error) => {
      assert.ok(!e.message.includes("\n"), e.message);
      assert.match(e.message, /^.*last\.yml:\d+:\d+: cannot parse the last-success file: \w.*\w/);
      assert.doesNotMatch(e.message, /:$/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a write replaces the file by a rename: the old file (inode) is never written in place", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/last.yml`;
    const old = '"old": 2023-01-01T00:00:00Z\n';
    await Deno.writeTextFile(path, old);
    // A second name for the old file: a write in place would change what it shows too.
    await Deno.link(path, `${dir}/old-link.yml`);
    const before = await Deno.stat(path);
    const file = new LastSuccessFile(path);
    await file.record("news", new Date("2024-05-01T12:00:00Z"));
    await file.flush();
    const after = await Deno.stat(path);
    assert.notEqual(after.ino, before.ino, "the path names a new file");
    assert.equal(await Deno.readTextFile(`${dir}/old-link.yml`), old, "the old file is intact");
    assert.equal((await Deno.stat(`${dir}/old-link.yml`)).nlink, 1, "the old name was unlinked");
    assert.deepEqual(
      [...(await readLastSuccess(path)).keys()],
      ["old", "news"],
    );
    // Every later write too, not only the first.
    const second = await Deno.stat(path);
    await Deno.link(path, `${dir}/second-link.yml`);
    const secondText = await Deno.readTextFile(path);
    await file.record("other", new Date("2024-05-01T12:00:05Z"));
    await file.flush();
    assert.notEqual((await Deno.stat(path)).ino, second.ino);
    assert.equal(await Deno.readTextFile(`${dir}/second-link.yml`), secondText);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readLastSuccess: our own lines and an edited file read as YAML reads them", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/l.yml`;
  const names = ['a"b', "c\\d", "é ü", "x: y", "#not-a-comment"];
  const at = new Date("2024-05-01T12:00:00Z");
  const file = new LastSuccessFile(path);
  for (const name of names) file.record(name, at);
  await file.flush();
  const own = await readLastSuccess(path);
  assert.deepEqual([...own.keys()], names);
  assert.deepEqual(Object.keys(parse(await Deno.readTextFile(path))), names);
  // Edited by hand: a comment, an offset time, a YAML escape JSON lacks, a blank line.
  await Deno.writeTextFile(
    path,
    '# kept by courier\n"a": 2024-05-01T14:00:00+02:00\n"\\x41": 2024-05-01T12:00:00Z\n\n',
  );
  const edited = await readLastSuccess(path);
  assert.deepEqual([...edited.keys()], ["a", "A"]);
  assert.equal(edited.get("a")?.toISOString(), "2024-05-01T12:00:00.000Z");
  // A name twice is refused, as YAML refuses a duplicate key.
  await Deno.writeTextFile(path, `"a": 2024-05-01T12:00:00Z\n"a": 2024-05-02T12:00:00Z\n`);
  await assert.rejects(readLastSuccess(path), LastSuccessError);
});
