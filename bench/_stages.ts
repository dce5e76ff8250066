// temporary: per-stage timing in a fresh process, like preview --json
const t0 = performance.now();
const { parseFeed } = await import("../src/feeds/parse.ts");
const { orderEntries } = await import("../src/feeds/merge.ts");
const { formatRfc3339 } = await import("../src/feeds/dates.ts");
const t1 = performance.now();
const bytes = await Deno.readFile(Deno.args[0]);
const t2 = performance.now();
const parsed = parseFeed(bytes, "file:///tmp/x", null, { summaries: false });
const t3 = performance.now();
const entries = orderEntries([parsed.entries]);
const t4 = performance.now();
let n = 0;
for (const e of entries) n += JSON.stringify(e.id).length + JSON.stringify(e.link).length + JSON.stringify(e.title).length + (e.published ? formatRfc3339(e.published).length : 0);
const t5 = performance.now();
console.log(`modules ${(t1-t0).toFixed(0)} read ${(t2-t1).toFixed(0)} parse ${(t3-t2).toFixed(0)} order ${(t4-t3).toFixed(0)} json ${(t5-t4).toFixed(0)} (${n})`);
