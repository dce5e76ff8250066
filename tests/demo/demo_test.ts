/**
 * `deno task demo` as a user runs it: a real process, its output read as it comes, Ctrl-C as
 * SIGINT. One test waits for one real minute boundary (the new story); no other real waiting.
 */
import assert from "node:assert/strict";

const DEMO = new URL("../../src/demo/main.ts", import.meta.url).pathname;
/** A minute boundary, the run it starts, and a slow shared machine. */
const NEXT_MINUTE_MS = 100_000;
const STARTUP_MS = 30_000;

interface Demo {
  /** Everything printed on stdout so far. */
  readonly stdout: string;
  /** Resolves once stdout matches `pattern`; fails after `ms` or if the demo ends first. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpExecArray>;
  interrupt(): void;
  /** Exit code, full stdout and stderr. */
  end(): Promise<{ code: number; stdout: string; stderr: string }>;
}

function startDemo(): Demo {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", DEMO],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  let closed = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      stdout += decoder.decode(chunk, { stream: true });
      wake();
    }
    closed = true;
    wake();
  })();
  const stderr = new Response(child.stderr).text();
  return {
    get stdout() {
      return stdout;
    },
    waitFor(pattern, ms) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match && !closed) return;
          waiters.delete(check);
          clearTimeout(timer);
          if (match) resolve(match);
          else reject(new Error(`demo ended without printing ${pattern}:\n${stdout}`));
        };
        // A bound on a real process's output, not a synchronisation: the wait ends on output.
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} within ${ms} ms:\n${stdout}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    interrupt: () => child.kill("SIGINT"),
    async end() {
      const { code } = await child.status;
      await reading;
      return { code, stdout, stderr: await stderr };
    },
  };
}

const configDir = (stdout: string) => /config at (\S+)\/config\.yml/.exec(stdout)?.[1];

Deno.test("demo: forward catches up, prints the story of the next minute, and Ctrl-C stops it cleanly", async () => {
  const demo = startDemo();
  try {
    // The catch-up: merged URLs, the first-sighting limit, escaping, Instant View links.
    await demo.waitFor(/--- message 6 to \S+\n.*\n.*\n/, STARTUP_MS);
    const catchUp = demo.stdout;
    assert.match(catchUp, /Press Ctrl-C to stop/);
    assert.match(catchUp, /Only on the mirror: merged feeds in one channel/);
    assert.doesNotMatch(catchUp, /An older story the first-sighting limit holds back/);
    assert.match(catchUp, /<b>Posting &lt;HTML&gt; safely to Telegram<\/b>/);
    assert.match(
      catchUp,
      /href="https:\/\/t\.me\/iv\?url=https%3A%2F%2Fblog\.example%2Fposts%2Fhello&amp;rhash=demo1234"/,
    );
    assert.equal(catchUp.match(/--- message \d+/g)?.length, 6);
    assert.doesNotMatch(catchUp, /Live from the demo press/);

    // The next minute boundary: the loop's run finds one new story and prints only it.
    const [, minute] = await demo.waitFor(
      /--- message 7 to @courier_demo\n<b>Live from the demo press: the (\d\d:\d\d) UTC story<\/b>\n.*\n/,
      NEXT_MINUTE_MS,
    );
    assert.match(minute, /^\d\d:\d\d$/);
    const afterTick = demo.stdout;
    // Nothing of the catch-up came again.
    assert.equal(afterTick.match(/Only on the mirror/g)?.length, 1);
    assert.equal(afterTick.match(/Hello, world/g)?.length, 1);
  } finally {
    demo.interrupt();
  }
  const { code, stdout, stderr } = await demo.end();
  assert.equal(code, 0, stderr);
  // Messages only: no log line at the default demo settings.
  assert.equal(stderr, "");
  const dir = configDir(stdout);
  assert.ok(dir);
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines.at(-1), `courier demo: stopped; removed ${dir}.`);
  await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
});

Deno.test("demo: Ctrl-C right after start, and a second Ctrl-C, still leave nothing behind", async () => {
  // As soon as the demo speaks: the loop may or may not be listening yet; both must clean up.
  const early = startDemo();
  await early.waitFor(/Press Ctrl-C to stop/, STARTUP_MS);
  early.interrupt();
  const first = await early.end();
  assert.ok([0, 130].includes(first.code), `exit ${first.code}: ${first.stderr}`);
  const firstDir = configDir(first.stdout);
  assert.ok(firstDir);
  assert.equal(
    first.stdout.trimEnd().split("\n").at(-1),
    `courier demo: stopped; removed ${firstDir}.`,
  );
  await assert.rejects(Deno.stat(firstDir), Deno.errors.NotFound);

  // Two at once during the catch-up: a clean stop (0) or an immediate one (130), never a trace.
  const twice = startDemo();
  await twice.waitFor(/--- message 1 /, STARTUP_MS);
  twice.interrupt();
  twice.interrupt();
  const second = await twice.end();
  assert.ok([0, 130].includes(second.code), `exit ${second.code}: ${second.stderr}`);
  const secondDir = configDir(second.stdout);
  assert.ok(secondDir);
  assert.match(second.stdout, /courier demo: stopped; removed /);
  await assert.rejects(Deno.stat(secondDir), Deno.errors.NotFound);
});
