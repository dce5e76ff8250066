const path = Deno.args[0];
let t0 = performance.now();
const f = Deno.openSync(path);
const size = f.statSync().size;
let t1 = performance.now();
const buf = new Uint8Array(size);
let t2 = performance.now();
let off = 0, calls = 0;
while (off < size) { const n = f.readSync(buf.subarray(off)); calls++; if (n === null) break; off += n; }
let t3 = performance.now();
f.close();
console.log(`open+stat ${(t1-t0).toFixed(1)} alloc ${(t2-t1).toFixed(1)} read ${(t3-t2).toFixed(1)} calls ${calls}`);
