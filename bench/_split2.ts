import { scanXml } from "../src/feeds/xml_scan.ts";
import { parseXml } from "../src/feeds/xml.ts";
import { parseFeed } from "../src/feeds/parse.ts";
import { decodeFeedBytes } from "../src/feeds/decode.ts";
const text = decodeFeedBytes(Deno.readFileSync(Deno.args[0])).text;
const res: Record<string, number[]> = {};
for (let r = 0; r < 6; r++) {
  for (const which of ["scan", "tree-drop", "feed"]) {
    const t = performance.now();
    if (which === "scan") scanXml(text, { onopentag() {}, onclosetag() {}, ontext() {}, oncdata() {} });
    else if (which === "tree-drop") parseXml(text, "file:///x", undefined, () => true);
    else parseFeed(text, "file:///x", null, { summaries: false });
    (res[which] ??= []).push(performance.now() - t);
  }
}
for (const [k, v] of Object.entries(res)) console.log(k, v.map((x) => x.toFixed(0)).join(" "));
