/**
 * The whole test suite, as the README and CI run it: static checks, unit
 * tests, the build of the real control plane, nats-server and Knative
 * Eventing (each a no-op when cached), then integration and end-to-end tests against them. Ends with
 * the line `N passed, N failed` (each static check counts as one).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites: number;
  success: boolean;
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

function check(title: string, command: string, args: string[]): void {
  if (run(title, command, args)) passed++;
  else failed++;
}

function jest(title: string, config: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): void {
  const output = `${reports}/${config.replace(/\W+/g, "-")}.json`;
  const ok = run(title, "jest", ["-c", config, "--json", `--outputFile=${output}`, ...extra], {
    NODE_OPTIONS: "--experimental-vm-modules --no-warnings",
    ...env,
  });
  if (!existsSync(output)) {
    failed++;
    return;
  }
  const report = JSON.parse(readFileSync(output, "utf8")) as JestReport;
  passed += report.numPassedTests;
  // A suite that fails to load has no failed tests of its own; count it.
  failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
  if (!ok && report.numFailedTests + report.numRuntimeErrorTestSuites === 0) failed++;
}

check("type-check", "tsc", ["-p", "tsconfig.json"]);
check("lint", "eslint", ["."]);
check("format", "prettier", ["--check", "."]);
if (existsSync("scripts/check-generated.ts"))
  check("generated files match the API source", process.execPath, ["scripts/check-generated.ts"]);
jest("unit tests", "jest.config.js");
if (
  run("build the test infrastructure", "bash", ["test/infra/build.sh"]) &&
  run("build the second nats-server, for version moves", "bash", ["test/infra/build-nats-next.sh"]) &&
  run("build Knative Eventing for the tests on real Knative", "bash", ["test/infra/build-knative.sh"]) &&
  run("build Knative Serving and Traefik for the functions as Knative Services", "bash", [
    "test/infra/build-serving.sh",
  ]) &&
  run("build helm for the chart tests", "bash", ["test/infra/build-helm.sh"]) &&
  run("build cert-manager for the TLS tests", "bash", ["test/infra/build-cert-manager.sh"]) &&
  run("build nsc for the nsc adoption test", "bash", ["test/infra/build-nsc.sh"])
) {
  // Every test file runs in this one process. A name the harness's hosts file does not hold (a
  // client still redialling a server of a finished test) goes to the machine's resolver, which
  // can take 5-10 s to say so; with libuv's default 4 threads a few of those stall every lookup,
  // so each server's monitoring port "gives no answer" for minutes. More threads keep them apart.
  jest("integration tests", "jest.integration.config.js", ["--runInBand"], { UV_THREADPOOL_SIZE: "64" });
} else {
  failed++;
}

process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed === 0 ? 0 : 1;
