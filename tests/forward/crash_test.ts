/**
 * Crash safety of delivery: `courier once` is killed with SIGKILL at random points of a run of
 * hundreds of messages, restarted, and in the end every entry has reached its channel, with at
 * most one duplicate per channel per kill. The kill points are random (the seed is printed);
 * the assertions hold for any of them. The kill is triggered by the fake Bot API itself when it
 * has accepted the K-th message, so no timing is involved.
 */
import assert from "node:assert/strict";
import { stringify } from "../support/yaml.ts";
import { type FakeMessage, startFakeBotApi } from "../support/fake_bot_api.ts";
import { startFeedServer } from "../support/once_feeds.ts";
import { Store } from "../../src/store/db.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const TOKEN = "123456:TEST-token_abc";
// 300 messages over 15 channels: 20 per channel, so courier's own pacing (the real limits:
// 20 a minute per channel, 30 a second overall) never makes a channel wait a minute.
const CHANNELS = Array.from({ length: 15 }, (_, i) => `@crash_chan${i}`);
const FEEDS_PER_CHANNEL = 2;
const ENTRIES = 10;
const KILLS = 5;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

Deno.test("once: SIGKILL at random points loses nothing, duplicates at most one per channel per kill", async () => {
  const seed = Number(Deno.env.get("COURIER_CRASH_SEED") ?? Date.now() % 1_000_000);
  console.log(`crash test seed ${seed} (set COURIER_CRASH_SEED to replay)`);
  const random = rng(seed);
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();

  // What the fake does when a message arrives and when it is accepted; swapped for each run.
  let before: (request: number) => Promise<boolean> | boolean = () => true;
  let hook: (message: FakeMessage, total: number) => Promise<void> | void = () => {};
  const bot = await startFakeBotApi({
    token: TOKEN,
    limits: null,
    beforeMessage: (request) => before(request),
    onMessage: (message, total) => hook(message, total),
  });

  const config: Record<string, unknown>[] = [];
  const expected = new Map<string, string[]>(); // channel → every title it must get
  for (const [c, channel] of CHANNELS.entries()) {
    expected.set(channel, []);
    for (let f = 0; f < FEEDS_PER_CHANNEL; f++) {
      const name = `feed${c}x${f}`;
      const items = Array.from({ length: ENTRIES }, (_, i) => ({
        id: `${name}-${i}`,
        title: `${name} entry ${String(i).padStart(3, "0")}`,
        link: `https://example.org/${name}/${i}`,
        minute: i,
      }));
      feeds.set(`/${name}.xml`, items);
      expected.get(channel)!.push(...items.map((i) => i.title));
      config.push({
        name,
        channel,
        url: feeds.url(`/${name}.xml`),
        cron: "* * * * *",
        type: "rss",
      });
    }
  }
  const total = CHANNELS.length * FEEDS_PER_CHANNEL * ENTRIES;
  await Deno.writeTextFile(
    `${dir}/config.yml`,
    stringify({ messenger_auth_token: TOKEN, data_dir: `${dir}/data`, feeds: config }),
  );

  const spawn = () =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--quiet",
        MAIN,
        "once",
        "-c",
        `${dir}/config.yml`,
        "--messenger-api",
        bot.url,
      ],
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).spawn();

  /** Where each run's messages end in the fake's log. */
  const boundaries: number[] = [];
  try {
    let kills = 0;
    for (; kills < KILLS; kills++) {
      const delivered = bot.messages().length;
      const remaining = total - new Set(bot.messages().map((m) => m.bold[0])).size;
      if (remaining <= 1) break;
      const killAt = delivered + 1 + Math.floor(random() * (remaining - 1));
      // Where the kill lands: before the K-th message is posted ("drop"), after it is posted
      // but before courier hears back ("hold", the worst case), or racing with the answer.
      const mode = (["drop", "hold", "race"] as const)[Math.floor(random() * 3)];
      const child = spawn();
      const stderr = child.stderr.pipeThrough(new TextDecoderStream());
      const errText = (async () => {
        let s = "";
        for await (const chunk of stderr) s += chunk;
        return s;
      })();
      const requestsBefore = bot.requests;
      const killRequest = requestsBefore + (killAt - delivered);
      before = async (n) => {
        if (mode !== "drop" || n !== killRequest) return true;
        child.kill("SIGKILL");
        await child.status;
        return false;
      };
      hook = async (_m, n) => {
        if (mode === "drop" || n !== killAt) return;
        child.kill("SIGKILL");
        if (mode === "hold") await child.status;
      };
      const status = await child.status;
      hook = () => {};
      before = () => true;
      const err = await errText;
      boundaries.push(bot.messages().length);
      assert.equal(status.signal, "SIGKILL", `run ${kills + 1} ended without the kill:\n${err}`);
    }
    // The last run is left alone and must finish the job.
    const final = await spawn().output();
    assert.equal(final.code, 0, new TextDecoder().decode(final.stderr));
    boundaries.push(bot.messages().length);

    const all = bot.messages();
    for (const channel of CHANNELS) {
      const got = all.filter((m) => m.chatId === channel).map((m) => m.bold[0]);
      // Nothing lost.
      assert.deepEqual(
        [...new Set(got)].sort(),
        [...expected.get(channel)!].sort(),
        `${channel}: lost entries`,
      );
      // Each run after a kill repeats at most one message already posted to the channel.
      let start = 0;
      const seen = new Set<string>();
      for (const end of boundaries) {
        const run = all.slice(start, end).filter((m) => m.chatId === channel).map((m) => m.bold[0]);
        const repeats = run.filter((t) => seen.has(t));
        assert.ok(
          repeats.length <= 1,
          `${channel}: ${repeats.length} duplicates after one kill: ${repeats}`,
        );
        for (const t of run) seen.add(t);
        start = end;
      }
      assert.ok(got.length - seen.size <= kills, `${channel}: more duplicates than kills`);
      // First deliveries keep each feed's order.
      const firsts = [...new Set(got)];
      for (let f = 0; f < FEEDS_PER_CHANNEL; f++) {
        const prefix = `feed${CHANNELS.indexOf(channel)}x${f} `;
        const mine = firsts.filter((t) => t.startsWith(prefix));
        assert.deepEqual(mine, [...mine].sort(), `${channel}: ${prefix}out of order`);
      }
    }
    // And the state agrees: every entry recorded as sent.
    const store = (await Store.open(`${dir}/data/feed_data`))!;
    try {
      assert.deepEqual(await store.query("SELECT status, count(*) FROM entries GROUP BY status"), [[
        "sent",
        total,
      ]]);
    } finally {
      store.close();
    }
  } finally {
    await feeds.close();
    await bot.close();
  }
});
