/**
 * Issue 25's year: two `courier forward` processes sharing one state, each built as the command
 * builds it (the Runtime with its channel leases, pacer and Bot API client; the Loop with the
 * leases and the takeover hook), on one injected clock, for a simulated year of hourly steps.
 * Six feeds on three channels are served by a loopback HTTP server and gain entries at random
 * (and once a month more at once than a channel may take in a minute); messages go to the fake
 * Bot API, which enforces Telegram's limits. The shared state is a SQLite file behind the
 * store's remote interface (StoreOptions.connect): the in-process stand-in for a libSQL server,
 * since the Hrana server's round trip per store call would make a year take minutes. The store
 * behaves as remote: leases, last successes in the database.
 *
 * The processes die as with SIGKILL, at random: between runs, at a database call, just before
 * a send, and right after the Bot API accepted a message but before the state recorded it. A
 * dead process does nothing more: its timers stop, and whatever of it reaches the database or
 * the Bot API waits forever; its leases stay until they expire. Others stop as with SIGTERM
 * (leases handed back). Each comes back hours later as a new holder.
 *
 * Over the year: no channel is ever held by two live processes, and every message goes out
 * from its channel's one live holder; a channel without a live holder is taken within the TTL
 * and a renewal step of the last death while some process is up; every entry is posted, each
 * feed's in publication order, and feeds of a channel sending together keep config order; the
 * limits hold; and the duplicates are exactly the messages the Bot API accepted from processes
 * that died before recording them, at most one per channel per death (the stated window).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { stringify } from "../support/yaml.ts";
import { parseSettings } from "../../src/config/load.ts";
import type { Settings } from "../../src/config/types.ts";
import { readFeed } from "../../src/feeds/read.ts";
import { Loop } from "../../src/forward/loop.ts";
import { Runtime } from "../../src/forward/runtime.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { Outbox, SendOptions, Sent } from "../../src/messenger/bot_api.ts";
import type { Message } from "../../src/messenger/format.ts";
import type { SqlClient } from "../../src/store/sql.ts";
import { Database } from "../../src/store/sqlite.ts";
import type { Clock, TimerId } from "../../src/time/clock.ts";
import { Deadlines } from "../../src/time/deadlines.ts";
import { startFakeBotApi } from "../support/fake_bot_api.ts";
import { random } from "../support/generated.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { type FeedItem, startFeedServer } from "../support/once_feeds.ts";

const TOKEN = "123456:TEST-token_abc";
const HOUR = 3_600_000;
/** The lease TTL, renewed every hour: the 60 s TTL renewed every 15 s, scaled to the steps. */
const TTL = 4 * HOUR;
const YEAR_HOURS = 365 * 24;
/** After the year: everyone up, nobody killed, nothing published, every feed run again. */
const SETTLE_HOURS = 24;
/** A feed shows its newest entries only. */
const WINDOW = 40;
/** Once a month a feed publishes more at once than its channel may take in a minute. */
const BURST = 21;
const MONTH_HOURS = 730;
const CHANNELS = ["@north", "@south", "@east"];
const FEEDS = [
  { name: "f0", channel: "@north", cron: "0 */2 * * *" },
  { name: "f1", channel: "@north", cron: "0 */3 * * *" },
  { name: "f2", channel: "@north", cron: "0 */6 * * *" },
  { name: "f3", channel: "@south", cron: "0 */2 * * *" },
  { name: "f4", channel: "@south", cron: "0 */4 * * *" },
  { name: "f5", channel: "@east", cron: "0 */3 * * *" },
];
/** Per feed and hour: a new entry. */
const P_PUBLISH = 0.06;
/** Per hour, while both are up: one of them is killed between runs, or stopped cleanly. */
const P_KILL = 0.006;
const P_TERM = 0.004;
/** Per hour, a process that is down comes back. */
const P_RESTART = 0.3;
/** Per message the Bot API accepted: the process dies before recording it. */
const P_KILL_AFTER_SEND = 0.015;
/** Per message about to go out: the process dies first. */
const P_KILL_BEFORE_SEND = 0.01;
/** Per process: the chance that it dies at some database call, and within how many. */
const P_DB_KILL = 0.5;
const DB_KILL_WITHIN = 1_500;

/** What a dead process's calls wait for. */
const never = <T>(): Promise<T> => new Promise<T>(() => {});

/** A number in [0, 1) fixed by `text`: a decision that does not depend on I/O order. */
function chance(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return random(h)();
}

/**
 * A process's view of the shared clock: its timers stop when it dies. It also tells when the
 * messenger client waits on the clock (Telegram's limits as the pacer keeps them), which only
 * the test can end by moving time on.
 */
class MortalClock implements Clock {
  readonly #base: ManualClock;
  readonly #timers = new Set<TimerId>();
  /** The messenger's waits: timer → when it ends (monotonic). */
  readonly #waits = new Map<TimerId, number>();
  #dead = false;
  #onWait: () => void = () => {};

  constructor(base: ManualClock) {
    this.#base = base;
  }

  now(): number {
    return this.#base.now();
  }

  monotonic(): number {
    return this.#base.monotonic();
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    if (this.#dead) return -1;
    const id = this.#base.setTimeout(() => {
      this.#timers.delete(id);
      this.#waits.delete(id);
      fn();
    }, ms);
    this.#timers.add(id);
    // The messenger client's waits go through time/clock.ts's sleep from bot_api.ts.
    if (ms > 0 && (new Error().stack ?? "").includes("/messenger/bot_api.ts")) {
      this.#waits.set(id, this.#base.monotonic() + ms);
      this.#onWait();
    }
    return id;
  }

  clearTimeout(id: TimerId): void {
    this.#timers.delete(id);
    this.#waits.delete(id);
    this.#base.clearTimeout(id);
  }

  /** When the messenger's earliest wait ends, or null. */
  get waitEnds(): number | null {
    return this.#waits.size === 0 ? null : Math.min(...this.#waits.values());
  }

  /** Resolves at the next wait of the messenger. */
  nextWait(): Promise<void> {
    return new Promise((resolve) => this.#onWait = resolve);
  }

  stop(): void {
    this.#dead = true;
    for (const id of this.#timers) this.#base.clearTimeout(id);
    this.#timers.clear();
    this.#waits.clear();
  }
}

interface Item {
  feed: string;
  id: string;
  title: string;
}

interface Accepted extends Item {
  channel: string;
}

/** One `courier forward` process: a generation of one machine. */
interface Proc {
  name: string;
  clock: MortalClock;
  runtime: Runtime;
  loop: Loop;
  dead: boolean;
  stopped: boolean;
  /** Whether random deaths (at a database call, around a send) may strike now. */
  armed: boolean;
  died: Promise<void>;
  kill(how: string): void;
  dbCalls: number;
  /** The database call it dies at, drawn at its start (Infinity: none). */
  dbKillAt: number;
  /** Messages the Bot API accepted from it during the current step. */
  accepted: Accepted[];
  /** Its sends under way, settled once the Bot API answered (dead or alive). */
  sending: Set<Promise<void>>;
  /** Error lines logged while it was alive. */
  errors: string[];
}

interface Kill {
  proc: Proc;
  how: string;
  hour: number;
}

Deno.test("two forward processes, a simulated year of random kills: nothing lost, duplicates only in the window, one holder", async () => {
  const started = performance.now();
  const dir = await Deno.makeTempDir(await isDir("/dev/shm") ? { dir: "/dev/shm" } : {});
  const dbFile = `${dir}/server.db`;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const feedServer = startFeedServer();
  const bot = await startFakeBotApi({ token: TOKEN, now: () => clock.monotonic() });
  const world = random(2025);
  const feeds = FEEDS.map((f) => ({ ...f, path: `/${f.name}.xml`, items: [] as FeedItem[] }));
  let serial = 0;
  const publish = (feed: typeof feeds[number]) => {
    serial++;
    feed.items.push({
      id: `${feed.name}-${serial}`,
      title: `${feed.name} #${serial}`,
      link: `https://example.org/${feed.name}/${serial}`,
      minute: serial,
    });
    feedServer.set(feed.path, feed.items.slice(-WINDOW));
  };
  for (const feed of feeds) publish(feed);

  const settingsOf = (machine: number): Settings =>
    parseSettings(
      stringify({
        messenger_auth_token: TOKEN,
        data_dir: `${dir}/m${machine}`,
        db_url: "http://state.invalid:8080",
        feeds: feeds.map((f) => ({
          name: f.name,
          channel: f.channel,
          url: feedServer.url(f.path),
          cron: f.cron,
          type: "rss",
        })),
      }),
      `${dir}/m${machine}/config.yml`,
      dir,
    );
  const settings = [settingsOf(0), settingsOf(1)];

  // What the test reads of the shared state: which entries are recorded as sent.
  let reader: DatabaseSync | null = null;
  const recorded = (a: Accepted) => {
    reader ??= new DatabaseSync(dbFile, { readOnly: true });
    const row = reader.prepare("SELECT status FROM entries WHERE feed = ? AND entry_id = ?")
      .get(a.feed, a.id) as { status: string } | undefined;
    return row?.status === "sent";
  };

  const procs: (Proc | null)[] = [null, null];
  const generations = [0, 0];
  const live = () => procs.filter((p): p is Proc => p !== null && !p.dead && !p.stopped);
  const violations: string[] = [];
  const kills: Kill[] = [];
  let lastDeath = -Infinity;
  /** Every message the Bot API accepted: who sent it, when, where, of which feed. */
  const posted: { proc: string; at: number; channel: string; feed: string }[] = [];
  let hour = 0;
  let ending = false;

  const itemOf = (html: string): Item => {
    const match = /\b(f\d+) #(\d+)\b/.exec(html);
    assert.ok(match, html);
    return { feed: match[1], id: `${match[1]}-${match[2]}`, title: `${match[1]} #${match[2]}` };
  };

  /** Sends as the process's client does; dies at random right after an accepted message. */
  const mortalOutbox = (proc: Proc, inner: Outbox): Outbox => ({
    async send(chat: string, message: Message, signal?: AbortSignal, options?: SendOptions) {
      if (proc.dead) return never<Sent>();
      const holders = live().filter((p) => p.runtime.leases!.holds(chat)).map((p) => p.name);
      if (holders.length !== 1 || holders[0] !== proc.name) {
        violations.push(`hour ${hour}: ${proc.name} sends to ${chat} held by ${holders}`);
      }
      const item = itemOf(message.html);
      if (proc.armed && chance(`${proc.name} before ${item.title}`) < P_KILL_BEFORE_SEND) {
        proc.kill("before a send");
        return never<Sent>();
      }
      const sending = inner.send(chat, message, signal, options);
      const settled = sending.then(
        () => {
          proc.accepted.push({ ...item, channel: chat });
          posted.push({ proc: proc.name, at: clock.monotonic(), channel: chat, feed: item.feed });
        },
        () => {},
      );
      proc.sending.add(settled);
      settled.finally(() => proc.sending.delete(settled));
      let sent: Sent;
      try {
        sent = await sending;
      } catch (error) {
        if (proc.dead) return never<Sent>();
        throw error;
      }
      if (proc.dead) return never<Sent>();
      if (proc.armed && chance(`${proc.name} ${item.title}`) < P_KILL_AFTER_SEND) {
        proc.kill("after a send");
        return never<Sent>();
      }
      return sent;
    },
  });

  /** The process's connection to the state; dies at its drawn database call. */
  const mortalConnection = (proc: Proc, inner: Database): SqlClient => {
    const gate = <T>(call: () => Promise<T>): Promise<T> => {
      if (!proc.dead && proc.armed && ++proc.dbCalls === proc.dbKillAt) {
        proc.kill("at a database call");
      }
      return proc.dead ? never<T>() : call();
    };
    return {
      execute: (statement) => gate(() => inner.execute(statement)),
      batch: (statements) => gate(() => inner.batch(statements)),
      close: () => inner.close(),
    };
  };

  const start = async (machine: number): Promise<Proc> => {
    const name = `P${machine}.${generations[machine]++}`;
    const mortal = new MortalClock(clock);
    let connection: Database | null = null;
    let diedNow!: () => void;
    const proc = {
      name,
      clock: mortal,
      dead: false,
      stopped: false,
      armed: false,
      died: new Promise<void>((resolve) => diedNow = resolve),
      dbCalls: 0,
      dbKillAt: world() < P_DB_KILL ? 1 + Math.floor(world() * DB_KILL_WITHIN) : Infinity,
      accepted: [],
      sending: new Set(),
      errors: [],
      kill(how: string) {
        if (proc.dead) return;
        proc.dead = true;
        proc.armed = false;
        mortal.stop();
        // The operating system closes a killed process's files and sockets.
        connection?.close();
        kills.push({ proc, how, hour });
        lastDeath = clock.monotonic();
        diedNow();
      },
    } as Omit<Proc, "runtime" | "loop"> as Proc;
    const logger = createLogger({
      format: "text",
      color: false,
      level: "warn",
      write: (line) => {
        if (!proc.dead && line.includes(" level=error ")) proc.errors.push(line);
      },
    });
    proc.runtime = await Runtime.open({
      settings: settings[machine],
      feeds: settings[machine].feeds,
      dryRun: false,
      messengerApi: bot.url,
      logger,
      writeOut: () => {},
      clock: mortal,
      leaseTtlMs: TTL,
      // The stand-in server's clock is the simulation's.
      databaseNow: () => clock.now(),
      connect: async () => {
        connection = Database.open(dbFile);
        await connection.execute("PRAGMA journal_mode = WAL");
        await connection.execute("PRAGMA busy_timeout = 5000");
        return mortalConnection(proc, connection);
      },
    });
    assert.ok(proc.runtime.leases, "a remote state has leases");
    proc.runtime.outbox.current = mortalOutbox(proc, proc.runtime.outbox.current);
    const runtime = proc.runtime;
    // As cli/forward_run.ts wires it, on the process's clock.
    proc.loop = new Loop({
      forwarder: {
        read: readFeed,
        ...runtime.forwarderParts,
        logger,
        concurrency: 4,
        deadlines: new Deadlines(mortal),
      },
      clock: mortal,
      logger,
      timezone: "UTC",
      lastSuccess: new Map(runtime.priorSuccesses),
      maxSleepMs: HOUR,
      maintenance: () => runtime.maintain(),
      checkpoint: async () => {
        await runtime.store?.checkpoint();
      },
      leases: runtime.leases!,
      onTakeover: (channels, taken) => runtime.takeOver(channels, taken),
    });
    proc.loop.start(settings[machine].feeds);
    proc.armed = !ending;
    procs[machine] = proc;
    return proc;
  };

  /** SIGTERM: the loop stops, then the runtime hands the leases back and closes. */
  const terminate = async (proc: Proc) => {
    proc.armed = false;
    await proc.loop.stop(0);
    await proc.runtime.close();
    proc.stopped = true;
  };

  /**
   * Lets every live process's runs end; when the messenger waits for Telegram's limits, time
   * moves on to the end of the wait, as it would while a real process waits.
   */
  let waitsForLimits = 0;
  const settle = async () => {
    for (let moved = true; moved;) {
      moved = false;
      for (const p of live()) {
        for (;;) {
          if (p.dead) break;
          const ends = p.clock.waitEnds;
          if (ends !== null) {
            await clock.advance(Math.max(0, ends - clock.monotonic()));
            waitsForLimits++;
            moved = true;
            continue;
          }
          const next = await Promise.race([
            p.loop.runsEnded().then(() => "ended"),
            p.died.then(() => "died"),
            p.clock.nextWait().then(() => "wait"),
          ]);
          if (next === "ended" && p.loop.running.length === 0) break;
        }
      }
    }
  };

  // Who holds each channel (the live holder last seen), and since when none has.
  const lastHolder = new Map<string, Proc>();
  const orphanedSince = new Map<string, number>();
  let takeovers = 0;
  let takeoversFromDead = 0;
  let terms = 0;
  let restarts = 0;
  const expectedDuplicates: string[] = [];
  let deathsMidDelivery = 0;

  const observe = () => {
    for (const channel of CHANNELS) {
      const holders = live().filter((p) => p.runtime.leases!.holds(channel));
      if (holders.length > 1) {
        violations.push(`hour ${hour}: ${channel} held by ${holders.map((p) => p.name)}`);
      }
      const holder = holders[0];
      if (holder === undefined) {
        if (!orphanedSince.has(channel)) orphanedSince.set(channel, clock.monotonic());
        // A death may hold a channel up to a TTL (its leases, its presence in the count of
        // processes that sets the shares); then a live process takes it at its next renewal.
        const since = Math.max(orphanedSince.get(channel)!, lastDeath);
        if (live().length > 0 && clock.monotonic() - since > TTL + HOUR) {
          violations.push(`hour ${hour}: ${channel} without a holder since ${since / HOUR} h`);
        }
        continue;
      }
      orphanedSince.delete(channel);
      const last = lastHolder.get(channel);
      if (last !== holder) {
        if (last !== undefined) takeovers++;
        if (last?.dead) takeoversFromDead++;
        lastHolder.set(channel, holder);
      }
    }
  };

  /** What a death left: messages the Bot API took that the state does not record as sent. */
  const account = async (kill: Kill) => {
    await Promise.all([...kill.proc.sending]);
    const unrecorded = kill.proc.accepted.filter((a) => !recorded(a));
    const channels = unrecorded.map((a) => a.channel);
    assert.equal(
      new Set(channels).size,
      channels.length,
      `${kill.proc.name} died (${kill.how}, hour ${kill.hour}) with two messages of one ` +
        `channel unrecorded: ${unrecorded.map((a) => a.title)}`,
    );
    if (unrecorded.length > 0) deathsMidDelivery++;
    for (const a of unrecorded) expectedDuplicates.push(`${a.channel} ${a.title}`);
  };

  const step = async () => {
    for (const p of procs) if (p) p.accepted = [];
    const killedBefore = kills.length;
    if (!ending) {
      for (const feed of feeds) if (world() < P_PUBLISH) publish(feed);
      if (hour % MONTH_HOURS === MONTH_HOURS / 2) {
        const feed = feeds[(hour / MONTH_HOURS | 0) % feeds.length];
        for (let i = 0; i < BURST; i++) publish(feed);
      }
      const m = world() < 0.5 ? 0 : 1;
      const p = procs[m]!;
      const up = live().length;
      const r = world();
      if (p.dead || p.stopped) {
        // With both down one comes back at once, so no backlog outgrows the feeds' windows.
        if (r < P_RESTART || up === 0) {
          await start(m);
          restarts++;
        }
      } else if (up === 2 && r < P_KILL) p.kill("between runs");
      else if (up === 2 && r < P_KILL + P_TERM) {
        await terminate(p);
        terms++;
      }
    }
    await settle();
    hour++;
    await clock.advance(hour * HOUR - clock.monotonic());
    await settle();
    for (const kill of kills.slice(killedBefore)) await account(kill);
    observe();
  };

  try {
    await start(0);
    await start(1);
    await settle();
    observe();
    while (hour < YEAR_HOURS) await step();
    // The year is over: everyone comes back, and every feed runs again with nobody killed.
    ending = true;
    for (const p of procs) if (p) p.armed = false;
    for (const [m, p] of procs.entries()) {
      if (p!.dead || p!.stopped) {
        await start(m);
        restarts++;
      }
    }
    while (hour < YEAR_HOURS + SETTLE_HOURS) await step();
    for (const p of live()) await terminate(p);

    const messages = bot.messages();
    const published = feeds.reduce((n, f) => n + f.items.length, 0);
    const counts = new Map<string, number>();
    for (const m of messages) {
      const key = `${m.chatId} ${m.bold[0]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const duplicates = [...counts].flatMap(([key, n]) => Array(n - 1).fill(key));
    const deaths = kills.length;
    console.log(
      `two-process year: ${published} entries, ${messages.length} messages, ` +
        `${duplicates.length} duplicates; ${deaths} kills (${deathsMidDelivery} mid-delivery: ` +
        `${kills.filter((k) => k.how === "after a send").length} after a send, ` +
        `${kills.filter((k) => k.how === "before a send").length} before a send, ` +
        `${kills.filter((k) => k.how === "at a database call").length} at a database call, ` +
        `${kills.filter((k) => k.how === "between runs").length} between runs), ` +
        `${terms} clean stops, ${restarts} restarts; ${takeovers} channels changed hands ` +
        `(${takeoversFromDead} from a dead holder); ${waitsForLimits} waits for the limits; ` +
        `${Math.round((performance.now() - started) / 1000)} s`,
    );

    assert.deepEqual(violations, []);
    assert.deepEqual(procs.flatMap((p) => p!.errors), []);
    for (const feed of feeds) {
      const titles = bot.messages(feed.channel).map((m) => m.bold[0]);
      const mine = titles.filter((t) => t.startsWith(`${feed.name} #`));
      const firsts = [...new Set(mine)];
      assert.deepEqual(
        firsts,
        feed.items.map((item) => item.title),
        `${feed.name}: every entry posted, in publication order`,
      );
    }
    assert.equal(counts.size, published, "no message of a feed went to another channel");
    // Feeds of one channel that send together (one process, one instant) keep config order.
    const order = new Map(FEEDS.map((f, i) => [f.name, i]));
    const furthest = new Map<string, number>();
    let together = 0;
    for (const p of posted) {
      const key = `${p.proc} ${p.channel} ${p.at}`;
      const before = furthest.get(key);
      const index = order.get(p.feed)!;
      assert.ok(before === undefined || before <= index, `${key}: ${p.feed} after a later feed`);
      if (before !== undefined && before < index) together++;
      furthest.set(key, index);
    }
    assert.ok(together > 50, `only ${together} times did feeds of a channel send together`);
    assert.deepEqual(duplicates.sort(), expectedDuplicates.sort());
    assert.ok(deaths > 60 && deathsMidDelivery > 30, `${deaths} kills, ${deathsMidDelivery}`);
    assert.ok(terms > 10, `${terms} clean stops`);
    // The bursts made the pacer wait, and Telegram's limits held (the fake enforces them).
    assert.ok(waitsForLimits >= 6, `${waitsForLimits} waits for the limits`);
    assert.equal(bot.throttled, 0);
    // Hundreds of processes came and went; with both stopped, none is left in the count.
    reader ??= new DatabaseSync(dbFile, { readOnly: true });
    assert.deepEqual(reader.prepare("SELECT holder FROM lease_holders").all(), []);
    assert.ok(takeoversFromDead > 40, `${takeoversFromDead} takeovers from a dead holder`);
  } finally {
    // After a failure: whatever still runs dies (a clean stop could wait on the clock).
    for (const p of live()) p.kill("at the end");
    (reader as DatabaseSync | null)?.close();
    await bot.close();
    await feedServer.close();
    await Deno.remove(dir, { recursive: true });
  }
});

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
