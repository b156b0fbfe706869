// At most one server pod voluntarily disrupted at a time.
import type { Cluster as NatsCluster } from "../cluster.ts";
import type { KubeObject, OwnerReference } from "../../../shared/kube/index.ts";
import { clusterLabels, clusterSelector } from "../names.ts";

export function renderPdb(
  cluster: NatsCluster,
  owner: OwnerReference[],
): KubeObject & { spec: Record<string, unknown> } {
  const name = cluster.metadata.name;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name, namespace: cluster.metadata.namespace, labels: clusterLabels(name), ownerReferences: owner },
    spec: { maxUnavailable: 1, selector: { matchLabels: clusterSelector(name) } },
  };
}
