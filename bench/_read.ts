let t = performance.now();
const a = Deno.args[1] === "sync" ? Deno.readFileSync(Deno.args[0]) : await Deno.readFile(Deno.args[0]);
console.log(Deno.args[1], (performance.now() - t).toFixed(1), a.length);
