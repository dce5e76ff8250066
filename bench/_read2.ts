const path = Deno.args[0];
let t = performance.now();
const f = Deno.openSync(path);
const size = f.statSync().size;
const buf = new Uint8Array(size);
let off = 0;
while (off < size) { const n = f.readSync(buf.subarray(off)); if (n === null) break; off += n; }
f.close();
console.log("prealloc", (performance.now() - t).toFixed(1), off);
t = performance.now();
const b = Deno.readFileSync(path);
console.log("readFileSync", (performance.now() - t).toFixed(1), b.length);
