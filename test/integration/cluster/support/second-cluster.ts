// A second Kubernetes cluster beside the harness's: an independent control plane (own API server,
// etcd and kubelet, on the run's node kind) with the operator running beside it as its own process,
// as a platform runs one operator per Kubernetes cluster. The stories that span Kubernetes
// clusters (a supercluster, a hub and its edge) put one side here.
import type { Kube } from "../../../../shared/kube/client.ts";
import { createKube } from "../../../../shared/kube/client.ts";
import { createTransport } from "../../../../shared/kube/transport.ts";
import { startControlPlane, stopControlPlane } from "../../../harness/control-plane.ts";
import { forwardNamespace } from "../../../harness/node/dns-peers.ts";
import { currentHarness, nodeOfThisRun, trackProcess, type HarnessState } from "../../../harness/state.ts";
import { runOperator, type ChildOperator } from "./child-operator.ts";

export interface SecondCluster {
  state: HarnessState;
  kube: Kube;
  /** `nats-operator run` against this cluster. */
  operator: ChildOperator;
  /** A namespace of this cluster, named `<prefix>-<time>` so that it differs from the first cluster's. */
  namespace(prefix: string): Promise<string>;
  /** Stops its operator, then its control plane. */
  stop(): Promise<void>;
}

/**
 * `label` names the cluster in the error when its operator does not come up; `operatorEnv` is the
 * operator's environment beside the defaults (`FUNCTIONS`, say).
 */
export async function startSecondCluster(
  label: string,
  operatorEnv: Record<string, string> = {},
): Promise<SecondCluster> {
  const state = await startControlPlane({ profile: "cluster", node: nodeOfThisRun(), log: () => undefined });
  // Stopped by stop(); recorded with the harness too, so a killed run does not leave it behind.
  const stateFile = process.env["NATS_OPERATOR_HARNESS_STATE"];
  if (stateFile) for (const running of state.processes) await trackProcess(stateFile, running);
  const kube = createKube(await createTransport(state.kubeconfig));
  const operator = runOperator(state.kubeconfig, operatorEnv, state.clusterDns);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${label}'s operator not watching after 120 s: ${operator.log.join("")}`)),
      120_000,
    );
  });
  await Promise.race([operator.ready, late]).finally(() => clearTimeout(timer));
  return {
    state,
    kube,
    operator,
    async namespace(prefix) {
      const name = `${prefix}-${Date.now().toString(36)}`;
      await kube.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
      return name;
    },
    async stop() {
      await operator.stop();
      await stopControlPlane(state);
    },
  };
}

/**
 * Each cluster's DNS answers the other's namespace by asking the other's CoreDNS, as a platform's
 * DNS federation would: `first` is a namespace of the harness's cluster, `second` one of `other`.
 * Only real nodes run CoreDNS; elsewhere names are the harness's own and nothing is needed.
 */
export async function resolveAcross(other: SecondCluster, first: string, second: string): Promise<void> {
  const home = await currentHarness();
  if (home?.clusterDns === undefined || other.state.clusterDns === undefined) return;
  await forwardNamespace(home, { namespace: second, dns: other.state.clusterDns });
  await forwardNamespace(other.state, { namespace: first, dns: home.clusterDns });
}
