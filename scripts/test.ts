/**
 * The whole test suite, as the README and CI run it: static checks, unit
 * tests, actionlint on the workflows and promtool on the chart's alerts, the build of the real control plane, nats-server and Knative
 * Eventing (each a no-op when cached), then integration and end-to-end tests against them, in two
 * Jest processes with a control plane each. Ends with the line `N passed, N failed` (each static
 * check counts as one). `node scripts/test.ts integration [path ...]` runs the builds and the
 * integration tests (those under the paths) only.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import {
  durationsFromReport,
  formatDurations,
  integrationFiles,
  runsOnRealNode,
  startsKnativeControlPlane,
  readDurations,
  split,
} from "./integration-split.ts";

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites: number;
  success: boolean;
  testResults?: {
    name: string;
    status?: string;
    message?: string;
    startTime?: number;
    endTime?: number;
    assertionResults?: { fullName?: string; status?: string }[];
  }[];
}

const reports = ".cache/test-reports";
mkdirSync(reports, { recursive: true });
let passed = 0;
let failed = 0;

function run(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): boolean {
  process.stdout.write(`\n== ${title}\n`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  process.stdout.write(
    `== ${title}: ${result.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return result.status === 0;
}

/**
 * Starts a build that runs beside the ones `run` runs one after another; resolves to whether it
 * succeeded. Its output goes to .cache/test-reports/<name>.log, a file rather than a pipe: `run`
 * blocks the event loop, and a pipe nobody drains would stall the build. When it ends, the
 * script's own `test-infra:` lines (its time, its result) are printed.
 */
function runBeside(name: string, title: string, command: string, args: string[]): Promise<boolean> {
  const log = `${reports}/${name}.log`;
  process.stdout.write(`\n== ${title}: started beside the next builds (log: ${log})\n`);
  const fd = openSync(log, "w");
  const child = spawn(command, args, { stdio: ["ignore", fd, fd] });
  closeSync(fd);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      const lines = readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("test-infra: "));
      process.stdout.write(`\n== ${title}: ${ok ? "ok" : "FAILED"}\n${lines.map((l) => `   ${l}\n`).join("")}`);
      resolve(ok);
    };
    child.once("error", () => done(false));
    child.once("close", (code) => done(code === 0));
  });
}

function check(title: string, command: string, args: string[]): void {
  if (run(title, command, args)) passed++;
  else failed++;
}

/** Adds a Jest --json report to the totals; `ok` is whether Jest exited 0. */
function count(output: string, ok: boolean): JestReport | undefined {
  if (!existsSync(output)) {
    failed++;
    return undefined;
  }
  const report = JSON.parse(readFileSync(output, "utf8")) as JestReport;
  passed += report.numPassedTests;
  // A suite that fails to load has no failed tests of its own; count it.
  failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
  if (!ok && report.numFailedTests + report.numRuntimeErrorTestSuites === 0) failed++;
  return report;
}

function jest(title: string, config: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): void {
  const output = `${reports}/${config.replace(/\W+/g, "-")}.json`;
  rmSync(output, { force: true });
  const ok = run(title, "jest", ["-c", config, "--json", `--outputFile=${output}`, ...extra], {
    NODE_OPTIONS: "--experimental-vm-modules --no-warnings",
    ...env,
  });
  count(output, ok);
}

/**
 * Jest processes for the files on the real node. Two real nodes run side by side without
 * interference, and the real node's files are the longest share of the suite.
 */
const REAL_NODE_PROCESSES = 2;

/**
 * The integration tests in several Jest processes at once, each with a control plane of its own
 * (the harness keeps runs apart: work dir, ports, pod addresses, hosts-file block): `processes`
 * for the simulated kubelet's files, REAL_NODE_PROCESSES for the real node's. The suite mostly
 * waits, so processes side by side on 2 cores take a fraction of the time of one. The files are
 * split by the durations in test/integration/durations.json (scripts/integration-split.ts). Each
 * process's output goes to .cache/test-reports/integration-<n>.log and, line by line with the
 * prefix `[integration-<n>]`, to stdout.
 */
async function integration(processes: number, env: NodeJS.ProcessEnv): Promise<void> {
  const durations = readDurations();
  // `node scripts/test.ts integration <path> ...`: only the files under those paths.
  const only = process.argv.slice(3);
  const files = integrationFiles().filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)));
  const onRealNode = files.filter((f) => runsOnRealNode(f));
  const groups = split(
    files.filter((f) => !onRealNode.includes(f)),
    durations,
    processes,
    (f) => startsKnativeControlPlane(f),
  );
  // The files on the real node run in processes of their own beside the others, each control
  // plane with a real node (in a network namespace of its own) in place of the simulated kubelet.
  for (const group of split(onRealNode, durations, REAL_NODE_PROCESSES))
    if (group.files.length > 0) groups.push({ ...group, env: { NATS_OPERATOR_HARNESS_NODE: "real" } });
  const started = Date.now();
  process.stdout.write(`\n== integration tests: ${files.length} files in ${groups.length} processes\n`);
  for (const [i, g] of groups.entries())
    process.stdout.write(
      `== integration-${i + 1}: ${g.files.length} files, about ${Math.round(g.seconds / 60)} min: ${g.files
        .map((f) => f.replace(/^test\/integration\//, ""))
        .join(" ")}\n`,
    );
  const results = await Promise.all(
    groups.map((g, i) => jestProcess(`integration-${i + 1}`, g.files, { ...env, ...g.env })),
  );
  const measured: Record<string, number> = Object.fromEntries(
    files.filter((f) => durations[f] !== undefined).map((f) => [f, durations[f] as number]),
  );
  for (const { name, output, ok, seconds } of results) {
    const report = count(output, ok);
    process.stdout.write(
      `== ${name}: ${ok ? "ok" : "FAILED"} in ${seconds.toFixed(1)} s` +
        (report ? `, ${report.numPassedTests} passed, ${report.numFailedTests} failed` : ", no report") +
        ` (log: ${reports}/${name}.log)\n`,
    );
    for (const r of report?.testResults ?? []) {
      if (r.status !== "failed") continue;
      const tests = (r.assertionResults ?? []).filter((a) => a.status === "failed").map((a) => a.fullName);
      process.stdout.write(`   FAILED ${r.name}${tests.length > 0 ? "" : " (did not run: see the log)"}\n`);
      for (const t of tests) process.stdout.write(`     - ${t}\n`);
    }
    if (report) Object.assign(measured, durationsFromReport(report));
  }
  // What this run measured, in durations.json's form: copy it over to rebalance the split.
  writeFileSync(`${reports}/integration-durations.json`, formatDurations(measured));
  process.stdout.write(
    `== integration tests: ${((Date.now() - started) / 1000).toFixed(1)} s; measured durations in ` +
      `${reports}/integration-durations.json\n`,
  );
}

function jestProcess(
  name: string,
  files: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ name: string; output: string; ok: boolean; seconds: number }> {
  const output = `${reports}/${name}.json`;
  rmSync(output, { force: true });
  const log = createWriteStream(`${reports}/${name}.log`);
  const started = Date.now();
  const child = spawn(
    "jest",
    [
      "-c",
      "jest.integration.config.js",
      "--runInBand",
      "--json",
      `--outputFile=${output}`,
      "--runTestsByPath",
      ...files,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "--experimental-vm-modules --no-warnings", ...env },
    },
  );
  const prefix = `[${name}] `;
  const pipe = (stream: NodeJS.ReadableStream): void => {
    let rest = "";
    stream.on("data", (chunk: Buffer) => {
      log.write(chunk);
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      if (lines.length > 0) process.stdout.write(lines.map((l) => prefix + l + "\n").join(""));
    });
    stream.on("end", () => {
      if (rest !== "") process.stdout.write(`${prefix}${rest}\n`);
    });
  };
  pipe(child.stdout);
  pipe(child.stderr);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      log.end();
      resolve({ name, output, ok, seconds: (Date.now() - started) / 1000 });
    };
    child.once("error", (err) => {
      process.stdout.write(`${prefix}cannot start jest: ${err.message}\n`);
      done(false);
    });
    child.once("close", (code) => done(code === 0));
  });
}

// `node scripts/test.ts integration`: the builds and the integration tests only.
if (process.argv[2] !== "integration") {
  check("type-check", "tsc", ["-p", "tsconfig.json"]);
  check("lint", "eslint", ["."]);
  check("format", "prettier", ["--check", "."]);
  if (existsSync("scripts/check-generated.ts"))
    check("generated files match the API source", process.execPath, ["scripts/check-generated.ts"]);
  jest("unit tests", "jest.config.js");
  // Each builds its tool from its Go module first (cached under test/infra's cache).
  check("actionlint on .github/workflows", "bash", ["scripts/check-workflows.sh"]);
  check("promtool check rules and test rules on the chart's alerts", "bash", ["scripts/check-rules.sh"]);
}
const controlPlaneAndTools =
  run("build the test infrastructure", "bash", ["test/infra/build.sh"]) &&
  run("build the second nats-server, for version moves", "bash", ["test/infra/build-nats-next.sh"]) &&
  run("build Knative Eventing for the tests on real Knative", "bash", ["test/infra/build-knative.sh"]) &&
  run("build Knative Serving and Traefik for the functions as Knative Services", "bash", [
    "test/infra/build-serving.sh",
  ]) &&
  run("build helm for the chart tests", "bash", ["test/infra/build-helm.sh"]) &&
  run("build cert-manager for the TLS tests", "bash", ["test/infra/build-cert-manager.sh"]) &&
  run("build nsc for the nsc adoption test", "bash", ["test/infra/build-nsc.sh"]);
// kube-state-metrics compiles beside the real node's and the image's builds, which keep the two
// cores only partly busy: the node's finds most of its Kubernetes packages compiled by build.sh and
// waits on apt, the image's waits on the npm registry and buildah. Its log is a file of its own.
const kubeStateMetrics = controlPlaneAndTools
  ? runBeside(
      "build-kube-state-metrics",
      "build kube-state-metrics for the chart's CustomResourceState configuration",
      "bash",
      ["test/infra/build-kube-state-metrics.sh"],
    )
  : Promise.resolve(false);
if (
  controlPlaneAndTools &&
  run(
    "build the real node (containerd, kubelet, kube-proxy, CoreDNS, kube-router) and install its Debian packages",
    "bash",
    ["test/infra/build-node.sh"],
  ) &&
  run("build the operator image from the Dockerfile (buildah, on base images made here)", "bash", [
    "test/infra/build-image.sh",
  ]) &&
  run("build the kubectl plugin's single executable (dist/kubectl-nats_operator)", process.execPath, [
    "scripts/build-plugin.ts",
  ]) &&
  (await kubeStateMetrics)
) {
  // A name the harness's hosts file does not hold (a client still redialling a server of a
  // finished test) goes to the machine's resolver, which can take 5-10 s to say so; with libuv's
  // default 4 threads a few of those stall every lookup, so each server's monitoring port "gives
  // no answer" for minutes. More threads keep them apart.
  await integration(2, { UV_THREADPOOL_SIZE: "64" });
} else {
  failed++;
}

process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed === 0 ? 0 : 1;
