// Helpers for the NatsCluster tests: the quickstart manifest, status reads and waits.
import type { Kube } from "../../../../shared/kube/client.ts";
import type { Condition } from "../../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../../shared/kube/object.ts";
import type { Cluster } from "../../../../functions/cluster/index.ts";
import { waitFor } from "../../../harness/wait.ts";

export const API_VERSION = "cluster.nats-operator.io/v1beta1";

/** Story 1 step 01 as the e2e run applies it: 100m CPU and 256Mi, JetStream on 20Gi claims. */
export function quickstart(
  namespace: string,
  name = "demo",
  memory = "256Mi",
): KubeObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: API_VERSION,
    kind: "NatsCluster",
    metadata: { name, namespace },
    spec: {
      version: "2.15.2",
      replicas: 3,
      resources: { requests: { cpu: "100m", memory }, limits: { memory } },
      jetstream: {
        volumeClaimTemplate: { spec: { storageClassName: "standard", resources: { requests: { storage: "20Gi" } } } },
      },
    },
  };
}

export const clusterKey = (namespace: string, name = "demo") => ({
  apiVersion: API_VERSION,
  kind: "NatsCluster",
  namespace,
  name,
});

export async function readCluster(kube: Kube, namespace: string, name = "demo"): Promise<Cluster | undefined> {
  return kube.get<Cluster>(clusterKey(namespace, name));
}

export function condition(cluster: Cluster | undefined, type: string): Condition | undefined {
  return (cluster?.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);
}

/** Ready AllServersReady, Settled AllGroupsCurrent, Progressing UpToDate, for the current generation. */
export async function waitAtRest(kube: Kube, namespace: string, timeoutMs: number, name = "demo"): Promise<Cluster> {
  let last: Cluster | undefined;
  return waitFor(
    `${name} at rest`,
    async () => {
      const cluster = await readCluster(kube, namespace, name);
      last = cluster;
      const ok =
        cluster?.status?.observedGeneration === cluster?.metadata.generation &&
        condition(cluster, "Ready")?.reason === "AllServersReady" &&
        condition(cluster, "Settled")?.reason === "AllGroupsCurrent" &&
        condition(cluster, "Progressing")?.reason === "UpToDate";
      return ok ? cluster : undefined;
    },
    { timeoutMs },
  ).catch((error: unknown) => {
    const conditions = (last?.status?.conditions as Condition[] | undefined)
      ?.map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`)
      .join("; ");
    throw new Error(
      `${String(error)}; generation ${last?.metadata.generation}, observed ${last?.status?.observedGeneration}; ${conditions}; rollout ${JSON.stringify(last?.status?.rollout)}`,
    );
  });
}
