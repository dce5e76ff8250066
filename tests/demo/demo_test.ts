import assert from "node:assert/strict";

const DEMO = new URL("../../src/demo/main.ts", import.meta.url).pathname;

Deno.test("demo: a dry run over the embedded feeds prints the messages and leaves nothing", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", DEMO],
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  // Merged URLs, the first-sighting limit, escaping and Instant View links all show.
  assert.match(stdout, /Only on the mirror: merged feeds in one channel/);
  assert.doesNotMatch(stdout, /An older story the first-sighting limit holds back/);
  assert.match(stdout, /<b>Posting &lt;HTML&gt; safely to Telegram<\/b>/);
  assert.match(
    stdout,
    /href="https:\/\/t\.me\/iv\?url=https%3A%2F%2Fblog\.example%2Fposts%2Fhello&amp;rhash=demo1234"/,
  );
  assert.match(stdout, /^demo-news\s+5\s+4\s+4\s+0$/m);
  assert.match(stdout, /nothing was sent or recorded/);
  const dir = /config at (\S+)\/config\.yml/.exec(stdout)?.[1];
  assert.ok(dir);
  await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
});
