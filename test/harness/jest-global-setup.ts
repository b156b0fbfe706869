// Jest globalSetup of the "integration" project: one control plane per test
// run ("cluster" profile, so tests get real nats-server pods). KUBECONFIG is
// exported through process.env, which test workers inherit.
//
//   NATS_OPERATOR_HARNESS_PROFILE=apiserver   etcd + kube-apiserver only (faster)
//   NATS_OPERATOR_HARNESS_NODE=real          the cluster profile on the real node (containerd,
//                                             kubelet, kube-proxy, CoreDNS, kube-router) instead of the simulated one
//   NATS_OPERATOR_HARNESS_EXTERNAL=1          use the cluster KUBECONFIG points at
//                                             (e.g. from `npm run cluster:up`)
import { installClusterDns, installClusterDnsServer } from "./cluster-dns.ts";
import { startControlPlane } from "./control-plane.ts";
import { spawnDetached } from "./processes.ts";
import { repoRoot } from "./paths.ts";
import { writeState } from "./state.ts";
import { join } from "node:path";
import type { Profile } from "./state.ts";

export const STATE_ENV = "NATS_OPERATOR_HARNESS_STATE";

export default async function globalSetup(): Promise<void> {
  const realNode = process.env["NATS_OPERATOR_HARNESS_NODE"] === "real";
  // The tests run in this process (--runInBand): they and the functions they drive resolve
  // in-cluster names as pods would.
  if (!realNode) installClusterDns();
  if (process.env["NATS_OPERATOR_HARNESS_EXTERNAL"] === "1") {
    if (!process.env["KUBECONFIG"]) throw new Error("NATS_OPERATOR_HARNESS_EXTERNAL=1 needs KUBECONFIG");
    return;
  }
  const profile: Profile = process.env["NATS_OPERATOR_HARNESS_PROFILE"] === "apiserver" ? "apiserver" : "cluster";
  const state = await startControlPlane({
    profile,
    node: realNode ? "real" : "simulated",
    log: (l) => process.stderr.write(`${l}\n`),
  });
  if (state.clusterDns !== undefined) installClusterDnsServer(state.clusterDns);
  const stateFile = join(state.workDir, "harness-state.json");
  await writeState(stateFile, state);
  process.env[STATE_ENV] = stateFile;
  // stops everything if this Jest process dies without running the global teardown
  spawnDetached(process.execPath, [join(repoRoot, "test", "harness", "watchdog.ts"), stateFile, String(process.pid)], {
    logFile: join(state.workDir, "logs", "watchdog.log"),
    cwd: repoRoot,
  });
  process.env["KUBECONFIG"] = state.kubeconfig;
  process.env["NATS_OPERATOR_HARNESS_BIN"] = state.binDir;
  process.stderr.write(
    `\ntest harness: ${profile} control plane ready in ${(state.timings["controlPlaneStartMs"] ?? 0) / 1000}s ` +
      `(${state.server}, logs in ${state.workDir}/logs)\n`,
  );
}
