import { parseFeed } from "../src/feeds/parse.ts";
import { decodeFeedBytes } from "../src/feeds/decode.ts";
const text = decodeFeedBytes(Deno.readFileSync(Deno.args[0])).text;
const times = [];
for (let r = 0; r < Number(Deno.args[1] ?? 8); r++) {
  const t = performance.now();
  parseFeed(text, "file:///x", null, { summaries: false });
  times.push(performance.now() - t);
}
console.log(times.map((x) => x.toFixed(0)).join(" "));
