/**
 * `deno task bench [NAME...]`: runs every benchmark in bench/ (or the named ones). Each module
 * exports `run()`, measures courier against its peers in the same run and prints medians and
 * ratios.
 */
const dir = new URL("./", import.meta.url);
const wanted = new Set(Deno.args);
const names: string[] = [];
for await (const entry of Deno.readDir(dir)) {
  if (!entry.isFile || !entry.name.endsWith(".ts") || entry.name === "main.ts") continue;
  if (entry.name.startsWith("_")) continue; // helpers shared by benchmarks
  const name = entry.name.slice(0, -3);
  if (wanted.size === 0 || wanted.has(name)) names.push(name);
}
names.sort();
if (names.length === 0) {
  console.error(`bench: nothing matches ${[...wanted].join(", ")}`);
  Deno.exit(2);
}
for (const name of names) {
  console.log(`\n=== bench ${name} ===`);
  const module = await import(new URL(`${name}.ts`, dir).href) as { run(): Promise<void> };
  await module.run();
}
