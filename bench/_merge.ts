import { parseFeed } from "../src/feeds/parse.ts";
import { orderEntries } from "../src/feeds/merge.ts";
const parsed = parseFeed(Deno.readFileSync(Deno.args[0]), "file:///x", null, { summaries: false });
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  const out = orderEntries([parsed.entries]);
  console.log(`order ${(performance.now() - t).toFixed(1)} ms ${out.length}`);
}
