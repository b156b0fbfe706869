// npm run cluster:up   -> starts the "cluster" profile in the background and
//                         prints `export KUBECONFIG=<path>` and `export KUBECTL=<path>`
// npm run cluster:up -- --knative -> the same with Knative Eventing and Serving (Traefik) running
// npm run cluster:up -- --real-node -> the cluster profile on a real node (containerd, kubelet,
//                         kube-proxy, kube-scheduler, CoreDNS, kube-router) instead of the simulated kubelet
// npm run cluster:up -- --cert-manager -> the same with cert-manager running (with either profile)
// npm run cluster:up -- --name east -> another, independent control plane (own API server,
//                         etcd, kubelet, ports and pod addresses) beside the unnamed one
// npm run cluster:down [-- --name east] -> stops it
// Progress goes to stderr, so `eval "$(npm run -s cluster:up)"` works.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startControlPlane, stopControlPlane } from "./control-plane.ts";
import { cliStateFile } from "./paths.ts";
import { isAlive } from "./processes.ts";
import { readState, writeState } from "./state.ts";
import type { Profile } from "./state.ts";

const usage =
  "usage: node test/harness/cli.ts up [cluster|apiserver|--knative] [--real-node] [--cert-manager] [--name <n>] | down [--name <n>]";

async function up(profile: Profile, certManager: boolean, realNode: boolean, name: string | undefined): Promise<void> {
  const stateFile = cliStateFile(name);
  const existing = await readState(stateFile);
  const down = name === undefined ? "npm run cluster:down" : `npm run cluster:down -- --name ${name}`;
  if (existing !== undefined && existing.processes.some((p) => isAlive(p.pid))) {
    process.stderr.write(`cluster already running (work dir ${existing.workDir}); run "${down}" first\n`);
    process.stdout.write(`export KUBECONFIG=${existing.kubeconfig}\n`);
    return;
  }
  const state = await startControlPlane({ profile, certManager, node: realNode ? "real" : "simulated" });
  await writeState(stateFile, state);
  process.stderr.write(
    `cluster${name === undefined ? "" : ` ${name}`} up in ${(state.timings["controlPlaneStartMs"] ?? 0) / 1000}s: ${state.server}, logs in ${state.workDir}/logs\n` +
      `kubectl: ${join(state.binDir, "kubectl")}\n`,
  );
  process.stdout.write(`export KUBECONFIG=${state.kubeconfig}\nexport KUBECTL=${join(state.binDir, "kubectl")}\n`);
}

async function down(name: string | undefined): Promise<void> {
  const stateFile = cliStateFile(name);
  const state = await readState(stateFile);
  if (state === undefined) {
    process.stderr.write("no cluster recorded; nothing to stop\n");
    return;
  }
  await stopControlPlane(state);
  await rm(stateFile, { force: true });
  process.stderr.write(`cluster stopped; removed ${state.workDir}\n`);
}

function profileOf(word: string | undefined, knative: boolean): Profile {
  if (knative || word === "knative") return "knative";
  return word === "apiserver" ? "apiserver" : "cluster";
}

try {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      knative: { type: "boolean" },
      "cert-manager": { type: "boolean" },
      "real-node": { type: "boolean" },
      name: { type: "string" },
    },
  });
  const [command, profileWord] = positionals;
  const name = values.name;
  if (name !== undefined && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name)) {
    process.stderr.write(`--name ${name}: lower-case letters, digits and dashes\n`);
    process.exitCode = 2;
  } else if (command === "up")
    await up(
      profileOf(profileWord, values.knative === true),
      values["cert-manager"] === true,
      values["real-node"] === true,
      name,
    );
  else if (command === "down") await down(name);
  else {
    process.stderr.write(`${usage}\n`);
    process.exitCode = 2;
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
