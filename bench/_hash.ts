const text = new TextDecoder().decode(Deno.readFileSync("/tmp/bench.rss"));
const ids: string[] = [];
let at = 0;
while ((at = text.indexOf("<guid", at)) >= 0) { const s = text.indexOf(">", at) + 1; const e = text.indexOf("<", s); ids.push(text.slice(s, e)); at = e; }
const flat = ids.map((s) => s.split("").join(""));
let t = performance.now();
new Set(flat);
console.log(`flat ${(performance.now() - t).toFixed(1)} ms`);
t = performance.now();
new Set(ids);
console.log(`sliced ${(performance.now() - t).toFixed(1)} ms`);
