/**
 * The release workflow cannot run here; this checks what it promises: a binary for each
 * system, each built and smoke-tested on a runner of that system, with Deno pinned, after the
 * tests, published with SHA-256 sums.
 */
import assert from "node:assert/strict";
import { parse } from "./support/yaml.ts";

const WORKFLOW = new URL("../.github/workflows/release.yml", import.meta.url);

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  "runs-on": string;
  strategy?: { matrix: { include: { target: string; runner: string }[] } };
  steps: Step[];
}
interface Workflow {
  on: { push: { tags: string[] } };
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = parse(await Deno.readTextFile(WORKFLOW)) as Workflow;
const runs = (job: Job) => job.steps.map((s) => s.run ?? "").join("\n");

Deno.test("release workflow: runs on version tags, tests first, with Deno 2.9.6 pinned", () => {
  assert.deepEqual(workflow.on.push.tags, ["v*"]);
  assert.equal(workflow.env.DENO_VERSION, "2.9.6");
  assert.equal(workflow.env.DENO_VERSION, Deno.version.deno, "the Deno the project runs on");
  assert.match(runs(workflow.jobs.test), /bash \.ci\/run/);
  assert.equal(workflow.jobs.build.needs, "test");
  assert.match(runs(workflow.jobs.build), /npm install -g "deno@\$DENO_VERSION"/);
});

Deno.test("release workflow: one binary per target, built and smoke-tested on its own system", () => {
  const build = workflow.jobs.build;
  const matrix = build.strategy!.matrix.include;
  assert.deepEqual(matrix.map((m) => m.target), TARGETS);
  for (const { target, runner } of matrix) {
    const [arch, , system] = target.split("-");
    const os = system === "linux" ? "ubuntu" : system === "darwin" ? "macos" : "windows";
    assert.ok(runner.startsWith(os), `${target} runs on ${runner}`);
    // GitHub's arm64 Linux runners end in -arm; its x86_64 macOS ones in -intel.
    if (os === "ubuntu") assert.equal(runner.endsWith("-arm"), arch === "aarch64", runner);
    if (os === "macos") assert.equal(runner.endsWith("-intel"), arch === "x86_64", runner);
  }
  assert.equal(build["runs-on"], "${{ matrix.runner }}");
  const script = runs(build);
  assert.match(
    script,
    /deno compile --allow-all --v8-flags=\S+ --target "\$\{\{ matrix\.target \}\}"/,
  );
  assert.match(script, /deno run --allow-all tests\/support\/binary_smoke\.ts "\$BIN"/);
  assert.ok(
    script.indexOf("binary_smoke.ts") > script.indexOf("deno compile"),
    "the smoke test runs on the binary just built",
  );
});

Deno.test("release workflow: publishes every binary with its SHA-256 sum", () => {
  const publish = workflow.jobs.publish;
  assert.equal(publish.needs, "build");
  const script = runs(publish);
  assert.match(script, /sha256sum courier-\* > SHA256SUMS/);
  assert.match(script, /gh release create "\$GITHUB_REF_NAME" dist\/\*/);
});
