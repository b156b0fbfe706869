// npm run cluster:up   -> starts the "cluster" profile in the background and
//                         prints `export KUBECONFIG=<path>` and `export KUBECTL=<path>`
// npm run cluster:up -- --knative -> the same with Knative Eventing running
// npm run cluster:up -- --cert-manager -> the same with cert-manager running (with either profile)
// npm run cluster:down -> stops it
// Progress goes to stderr, so `eval "$(npm run -s cluster:up)"` works.
import { startControlPlane, stopControlPlane } from "./control-plane.ts";
import { readState, writeState } from "./state.ts";
import { cliStateFile } from "./paths.ts";
import { isAlive } from "./processes.ts";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Profile } from "./state.ts";

async function up(profile: Profile, certManager: boolean): Promise<void> {
  const existing = await readState(cliStateFile);
  if (existing !== undefined && existing.processes.some((p) => isAlive(p.pid))) {
    process.stderr.write(`cluster already running (work dir ${existing.workDir}); run "npm run cluster:down" first\n`);
    process.stdout.write(`export KUBECONFIG=${existing.kubeconfig}\n`);
    return;
  }
  const state = await startControlPlane({ profile, certManager });
  await writeState(cliStateFile, state);
  process.stderr.write(
    `cluster up in ${(state.timings["controlPlaneStartMs"] ?? 0) / 1000}s: ${state.server}, logs in ${state.workDir}/logs\n` +
      `kubectl: ${join(state.binDir, "kubectl")}\n`,
  );
  process.stdout.write(`export KUBECONFIG=${state.kubeconfig}\nexport KUBECTL=${join(state.binDir, "kubectl")}\n`);
}

async function down(): Promise<void> {
  const state = await readState(cliStateFile);
  if (state === undefined) {
    process.stderr.write("no cluster recorded; nothing to stop\n");
    return;
  }
  await stopControlPlane(state);
  await rm(cliStateFile, { force: true });
  process.stderr.write(`cluster stopped; removed ${state.workDir}\n`);
}

const [command, ...args] = process.argv.slice(2);
const certManager = args.includes("--cert-manager");
const profileArg = args.find((a) => a !== "--cert-manager");
const profile: Profile =
  profileArg === "apiserver"
    ? "apiserver"
    : profileArg === "--knative" || profileArg === "knative"
      ? "knative"
      : "cluster";
try {
  if (command === "up") await up(profile, certManager);
  else if (command === "down") await down();
  else {
    process.stderr.write("usage: node test/harness/cli.ts up [cluster|apiserver|--knative] [--cert-manager] | down\n");
    process.exitCode = 2;
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
