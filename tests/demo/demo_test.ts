/**
 * `deno task demo` as a user runs it: a real process, its output read as it comes, Ctrl-C as
 * SIGINT. One test waits for one real minute boundary (the new story); no other real waiting.
 */
import assert from "node:assert/strict";

const DEMO = new URL("../../src/demo/main.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;
/** A minute boundary, the run it starts, and a slow shared machine. */
const NEXT_MINUTE_MS = 100_000;
const STARTUP_MS = 30_000;

interface Demo {
  /** Everything printed on stdout so far. */
  readonly stdout: string;
  /** Resolves once stdout matches `pattern`; fails after `ms` or if the demo ends first. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpExecArray>;
  /** SIGINT to the demo; with `asTerminal`, to its whole process group, as Ctrl-C does. */
  interrupt(): void;
  /** Exit code, full stdout and stderr. */
  end(): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Starts the demo. `viaTask`: as `deno task demo` in a process group of its own, so that an
 * interrupt reaches every process of it, as a terminal's Ctrl-C does (and `deno task` passes
 * it on to its child once more).
 */
function startDemo({ viaTask = false } = {}): Demo {
  const child = new Deno.Command(Deno.execPath(), {
    args: viaTask ? ["task", "demo"] : ["run", "--allow-all", "--quiet", DEMO],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: viaTask,
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
    interrupt: () => viaTask ? Deno.kill(-child.pid, "SIGINT") : child.kill("SIGINT"),
    async end() {
      const { code } = await child.status;
      await reading;
      return { code, stdout, stderr: await stderr };
    },
  };
}

const configDir = (stdout: string) => /config at (\S+)\/config\.yml/.exec(stdout)?.[1];

Deno.test("demo: forward catches up, prints the story of the next minute, and Ctrl-C stops it cleanly", async () => {
  const demo = startDemo({ viaTask: true });
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
  // Messages only: no log line (stderr has only deno task's own line naming the command).
  assert.deepEqual(stderr.trim().split("\n").filter((l) => !/^Task demo /.test(l)), []);
  const dir = configDir(stdout);
  assert.ok(dir);
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines.at(-1), `courier demo: stopped; removed ${dir}.`);
  await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
});

Deno.test("demo: Ctrl-C right after start, or twice, still stops cleanly and leaves nothing", async () => {
  // As soon as the demo speaks: courier may not be listening for signals yet.
  const early = startDemo();
  await early.waitFor(/Press Ctrl-C to stop/, STARTUP_MS);
  early.interrupt();
  const first = await early.end();
  assert.equal(first.code, 0, first.stderr);
  const firstDir = configDir(first.stdout);
  assert.ok(firstDir);
  assert.equal(
    first.stdout.trimEnd().split("\n").at(-1),
    `courier demo: stopped; removed ${firstDir}.`,
  );
  await assert.rejects(Deno.stat(firstDir), Deno.errors.NotFound);

  // Two during the catch-up: the demo passes one on, and courier stops cleanly.
  const twice = startDemo();
  await twice.waitFor(/--- message 1 /, STARTUP_MS);
  twice.interrupt();
  twice.interrupt();
  const second = await twice.end();
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stderr, "");
  const secondDir = configDir(second.stdout);
  assert.ok(secondDir);
  assert.match(second.stdout, /courier demo: stopped; removed /);
  await assert.rejects(Deno.stat(secondDir), Deno.errors.NotFound);
});
