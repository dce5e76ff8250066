/**
 * The container image cannot be built here (no base image can be pulled); this checks what the
 * Dockerfile, compose.yaml and the release workflow promise, the way release_workflow_test.ts
 * checks the binaries, and runs for real what the image runs: its HEALTHCHECK command against a
 * real `courier forward`, and compose's way of giving the token.
 */
import assert from "node:assert/strict";
import { parse } from "./support/yaml.ts";
import { closedPort } from "./support/hostile_servers.ts";
import { runCli } from "./support/cli.ts";
import { startFakeBotApi } from "./support/fake_bot_api.ts";
import { startFeedServer } from "./support/once_feeds.ts";
import { startForward } from "./support/forward_process.ts";
import { canonical, parseNormalizedNamed, ReferenceError } from "./support/docker_reference.ts";
import { installed } from "./support/tools.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

interface Instruction {
  stage: number;
  op: string;
  args: string;
}

/** Dockerfile instructions (continuation lines joined, comments dropped), by build stage. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  const logical = text.replace(/\\\n/g, " ").split("\n").map((l) => l.trim());
  for (const line of logical) {
    if (line === "" || line.startsWith("#")) continue;
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (op.toUpperCase() === "FROM") stage++;
    out.push({ stage, op: op.toUpperCase(), args: args.replace(/\s+/g, " ") });
  }
  return out;
}

const dockerfile = instructions(await read("Dockerfile"));
const final = Math.max(...dockerfile.map((i) => i.stage));
const all = (op: string, stage = final) =>
  dockerfile.filter((i) => i.op === op && i.stage === stage).map((i) => i.args);
const one = (op: string, stage = final) => {
  const found = all(op, stage);
  assert.equal(found.length, 1, `one ${op} in stage ${stage}`);
  return found[0];
};

/** A FROM's image and stage name. */
const from = (stage: number) => {
  const [image, as, name] = one("FROM", stage).split(" ");
  return { image, stage: as?.toUpperCase() === "AS" ? name : null };
};

Deno.test("Dockerfile: built from the pinned Deno with the release's commands", () => {
  const build = from(0);
  assert.equal(build.stage, "build");
  const ref = parseNormalizedNamed(build.image);
  assert.equal(ref.path, "denoland/deno");
  assert.equal(ref.tag, Deno.version.deno, "the Deno the project runs on");
  assert.match(ref.digest ?? "", /^sha256:[a-f0-9]{64}$/, "pinned by digest too");
  const run = all("RUN", 0).join(" && ");
  assert.match(run, /deno install --frozen/);
  assert.match(run, /deno compile --allow-all --v8-flags=\S+ --output \/out\/courier main\.ts/);
  assert.match(run, /\/out\/courier --version/, "the binary runs before it is shipped");
});

Deno.test("Dockerfile: small, non-root, /data, a HEALTHCHECK on /healthz, forward by default", () => {
  const base = parseNormalizedNamed(from(final).image);
  assert.equal(`${base.domain}/${base.path}:${base.tag}`, "gcr.io/distroless/cc-debian12:nonroot");
  assert.match(base.digest ?? "", /^sha256:[a-f0-9]{64}$/, "pinned by digest too");
  // Relative paths given on the command line are found in the volume.
  assert.equal(one("WORKDIR"), "/data");
  const user = one("USER");
  assert.ok(!/^(0|root)(:|$)/.test(user), `runs as ${user}`);
  assert.equal(one("VOLUME"), "/data");
  assert.ok(
    all("COPY").some((c) => c === `--from=build --chown=${user} /out/data /data`),
    "the volume's directory belongs to the user",
  );
  assert.equal(one("EXPOSE"), "9464");
  assert.equal(one("STOPSIGNAL"), "SIGTERM");
  assert.equal(
    one("HEALTHCHECK"),
    '--interval=30s --timeout=10s --start-period=20s --retries=3 CMD ["/usr/local/bin/courier", "healthcheck", "127.0.0.1:9464"]',
  );
  assert.deepEqual(JSON.parse(one("ENTRYPOINT")), ["/usr/local/bin/courier"]);
  assert.deepEqual(JSON.parse(one("CMD")), ["forward", "--metrics", ":9464"]);
  assert.equal(one("ENV"), "COURIER_CONFIG=/etc/courier/config.yml MALLOC_ARENA_MAX=2");
});

Deno.test("Dockerfile: what it copies exists and .dockerignore lets it through", async () => {
  const ignore = (await read(".dockerignore")).split("\n").filter((l) => l && !l.startsWith("#"));
  assert.deepEqual(ignore, ["*", "!deno.json", "!deno.lock", "!main.ts", "!src/"]);
  for (const copy of all("COPY", 0)) {
    const paths = copy.split(" ").slice(0, -1);
    for (const path of paths) {
      await Deno.stat(new URL(path, ROOT));
      assert.ok(ignore.includes(`!${path.replace(/\/?$/, path === "src" ? "/" : "")}`), path);
    }
  }
});

interface Compose {
  services: Record<string, {
    image: string;
    build: string;
    init: boolean;
    command: string[];
    environment: Record<string, string>;
    secrets: string[];
    volumes: string[];
    ports: string[];
    stop_grace_period: string;
    pull_policy: string;
    read_only: boolean;
    tmpfs: string[];
    cap_drop: string[];
    security_opt: string[];
  }>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}

Deno.test("compose.yaml: the token as a secret file, state in a volume, a grace longer than forward's", async () => {
  const compose = parse(await read("compose.yaml")) as Compose;
  const service = compose.services.courier;
  assert.equal(service.build, ".");
  assert.equal(service.init, true);
  assert.deepEqual(service.command, ["forward", "--metrics", ":9464"]);
  const [secret] = service.secrets;
  assert.equal(service.environment.COURIER_MESSENGER_AUTH_TOKEN_FILE, `/run/secrets/${secret}`);
  assert.ok(compose.secrets[secret].file);
  assert.ok(service.volumes.includes("courier-data:/data"));
  assert.ok(service.volumes.includes("./config.yml:/etc/courier/config.yml:ro"));
  assert.ok("courier-data" in compose.volumes);
  assert.deepEqual(service.ports, ["127.0.0.1:9464:9464"]);
  assert.ok(Number.parseInt(service.stop_grace_period) > 30, "longer than --grace 30");
});

Deno.test("compose.yaml: a read-only root, no capabilities, no new privileges, built not pulled", async () => {
  const service = (parse(await read("compose.yaml")) as Compose).services.courier;
  assert.equal(service.read_only, true);
  assert.deepEqual(service.tmpfs, ["/tmp"]);
  assert.deepEqual(service.cap_drop, ["ALL"]);
  assert.deepEqual(service.security_opt, ["no-new-privileges:true"]);
  // A plain name would be looked for on Docker Hub first: it is built here, never pulled.
  assert.equal(service.pull_policy, "build");
});

/**
 * Cases of distribution/reference's own tests (reference_test.go, normalize_test.go): the
 * reference each is, or null when Docker refuses it.
 */
const HEX64 = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
const REFERENCE_CASES: [string, string | null][] = [
  ["test_com", "docker.io/library/test_com"],
  ["test.com:tag", "docker.io/library/test.com:tag"],
  ["test.com:5000", "docker.io/library/test.com:5000"],
  ["test.com/repo:tag", "test.com/repo:tag"],
  ["test:5000/repo", "test:5000/repo"],
  ["test:5000/repo:tag", "test:5000/repo:tag"],
  [`test:5000/repo@sha256:${HEX64}`, `test:5000/repo@sha256:${HEX64}`],
  [`test:5000/repo:tag@sha256:${HEX64}`, `test:5000/repo:tag@sha256:${HEX64}`],
  ["lowercase:Uppercase", "docker.io/library/lowercase:Uppercase"],
  ["sub-dom1.foo.com/bar/baz/quux", "sub-dom1.foo.com/bar/baz/quux"],
  ["foo_bar.com:8080", "docker.io/library/foo_bar.com:8080"],
  ["foo/foo_bar.com:8080", "docker.io/foo/foo_bar.com:8080"],
  ["a__b/c--d", "docker.io/a__b/c--d"],
  ["localhost/courier", "localhost/courier"],
  ["[2001:db8::1]:5000/repo", "[2001:db8::1]:5000/repo"],
  ["", null],
  [":justtag", null],
  [`@sha256:${HEX64}`, null],
  [`repo@sha256:${HEX64.slice(1)}`, null],
  [`validname@invalidalgorithm:${HEX64}`, null],
  ["Uppercase:tag", null],
  ["test:5000/Uppercase/lowercase:tag", null],
  ["ghcr.io/OWNER/courier:latest", null],
  ["aa/asdf$$^/aa", null],
  ["a___b/c", null],
  ["a-/b", null],
  [`${"a/".repeat(127)}ab`, null],
  [HEX64.replaceAll("f", "a"), null],
];

Deno.test("Docker's reference grammar (a port): distribution/reference's own cases", () => {
  for (const [input, expected] of REFERENCE_CASES) {
    let got: string | null;
    try {
      got = canonical(parseNormalizedNamed(input));
    } catch (error) {
      if (!(error instanceof ReferenceError)) throw error;
      got = null;
    }
    assert.equal(got, expected, JSON.stringify(input));
  }
  assert.throws(() => parseNormalizedNamed("ghcr.io/OWNER/courier:latest"), /must be lowercase/);
});

/** The port's error for a reference it refuses. */
function refusal(input: string): string {
  try {
    parseNormalizedNamed(input);
  } catch (error) {
    if (error instanceof ReferenceError) return error.message;
    throw error;
  }
  throw new Error(`${input} is accepted`);
}

Deno.test("Docker's reference grammar: the docker CLI agrees with the port", async (t) => {
  if (!(await installed("docker", ["--version"]))) {
    console.warn("docker is not installed: the CLI's second opinion on image references skipped");
    return;
  }
  const home = await Deno.makeTempDir();
  try {
    for (const [input, expected] of REFERENCE_CASES) {
      if (input === "") continue; // `docker pull ""` is a usage error, not a parse
      await t.step(JSON.stringify(input), async () => {
        // `docker pull` parses the reference before it connects; with no daemon there to
        // connect to, a reference it accepts ends at "Cannot connect", and nothing is fetched.
        const out = await new Deno.Command("docker", {
          args: ["pull", input],
          clearEnv: true,
          env: {
            HOME: home,
            DOCKER_CONFIG: `${home}/.docker`,
            DOCKER_HOST: `unix://${home}/no-daemon.sock`,
            PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const said = new TextDecoder().decode(out.stderr);
        const accepted = /Cannot connect to the Docker daemon/.test(said);
        assert.equal(accepted, expected !== null, said);
        // A refusal is the port's own error, word for word.
        if (!accepted) assert.ok(said.includes(refusal(input)), `${said} / ${refusal(input)}`);
      });
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("compose.yaml and the Dockerfile name images Docker accepts; bases pinned by digest", async () => {
  const service = (parse(await read("compose.yaml")) as Compose).services.courier;
  assert.equal(canonical(parseNormalizedNamed(service.image)), "docker.io/library/courier:latest");
  const stages = new Set<string>();
  for (let stage = 0; stage <= final; stage++) {
    const { image, stage: name } = from(stage);
    if (!stages.has(image)) {
      const ref = parseNormalizedNamed(image);
      assert.ok(ref.tag && ref.digest, `${image}: a tag says which, a digest makes it so`);
    }
    if (name) stages.add(name);
  }
});

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

Deno.test("release workflow: the image is built for amd64 and arm64 and pushed on a tag", async () => {
  const workflow = parse(await read(".github/workflows/release.yml")) as {
    on: { push: { tags: string[] } };
    jobs: Record<string, { needs: string; permissions: Record<string, string>; steps: Step[] }>;
  };
  assert.deepEqual(Object.keys(workflow.on), ["push"]);
  assert.deepEqual(workflow.on.push.tags, ["v*"]);
  const image = workflow.jobs.image;
  assert.equal(image.needs, "test");
  assert.equal(image.permissions.packages, "write");
  const uses = image.steps.map((s) => s.uses ?? "");
  for (
    const action of [
      "docker/setup-qemu-action@v3",
      "docker/setup-buildx-action@v3",
      "docker/login-action@v3",
      "docker/metadata-action@v5",
      "docker/build-push-action@v6",
    ]
  ) {
    assert.ok(uses.includes(action), action);
  }
  const build = image.steps.find((s) => s.uses === "docker/build-push-action@v6")!;
  assert.equal(build.with!.platforms, "linux/amd64,linux/arm64");
  assert.equal(build.with!.push, true);
  // The Dockerfile pins its bases itself (tag and digest): no build argument picks them.
  assert.equal(build.with!["build-args"], undefined);
  const login = image.steps.find((s) => s.uses === "docker/login-action@v3")!;
  assert.equal(login.with!.registry, "ghcr.io");
  const smoke = image.steps.at(-1)!;
  assert.match(smoke.run!, /for platform in linux\/amd64 linux\/arm64/);
  assert.match(smoke.run!, /--version \| grep -F "courier \$\{GITHUB_REF_NAME#v\}"/);
});

Deno.test("the image's HEALTHCHECK command: 0 for a running forward, 1 for none, one line", async () => {
  const dir = await Deno.makeTempDir();
  const feeds = startFeedServer();
  const token = "123456:TEST-token_image";
  const bot = await startFakeBotApi({ token, limits: null });
  const port = closedPort();
  feeds.set("/news.xml", [{ id: "n1", title: "N one" }]);
  // As compose gives it: the config without the token, the token in a secret file.
  await Deno.writeTextFile(`${dir}/token`, `${token}\n`);
  await Deno.chmod(`${dir}/token`, 0o400);
  await Deno.writeTextFile(
    `${dir}/config.yml`,
    `data_dir: ${dir}/data\nfeeds:\n  - name: news\n    channel: "@news_chan"\n` +
      `    url: ${feeds.url("/news.xml")}\n    cron: "* * * * *"\n    type: rss\n`,
  );
  const env = {
    COURIER_CONFIG: `${dir}/config.yml`,
    COURIER_MESSENGER_AUTH_TOKEN_FILE: `${dir}/token`,
  };
  const forward = startForward(
    ["--metrics", `127.0.0.1:${port}`, "--messenger-api", bot.url],
    env,
  );
  let stopped = false;
  try {
    // The server is up once forward says so.
    await forward.until("msg=forwarding");
    const check = await runCli(["healthcheck", `127.0.0.1:${port}`]);
    assert.deepEqual([check.code, check.stdout, check.stderr], [0, "", ""]);
    const { code, log } = await forward.stop();
    stopped = true;
    assert.equal(code, 0, log);
    assert.match(log, /msg=stopped/);
    assert.ok(!log.includes("TEST-token"), "the token stays out of the log");
  } finally {
    if (!stopped) await forward.stop();
    await feeds.close();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
  const none = await runCli(["healthcheck", `127.0.0.1:${closedPort()}`]);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /^courier healthcheck: http:\/\/127\.0\.0\.1:\d+\/healthz: not answering/,
  );
  assert.equal(none.stderr.trimEnd().split("\n").length, 1);
});
