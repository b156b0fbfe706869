import { KINDS, type NatsClusterStatus } from "../../../shared/api/index.ts";
import { findCondition, type Kube, type KubeObject } from "../../../shared/kube/index.ts";
import type { NatsConnectionObject } from "../../../shared/nats/index.ts";
import { type CoveredCluster, namespacesNamed } from "./rollout.ts";

/** The NatsClusters reporting servers in the namespaces a balancer names (rollout.ts): the ones that may be its own. */
export async function readClusters(
  kube: Kube,
  balancerNamespace: string,
  connection: NatsConnectionObject,
): Promise<CoveredCluster[]> {
  const namespaces = namespacesNamed(balancerNamespace, connection);
  const clusters = await kube.list<KubeObject & { status?: NatsClusterStatus }>({
    apiVersion: KINDS.NatsCluster.apiVersion,
    kind: KINDS.NatsCluster.kind,
  });
  return clusters.flatMap((c) => {
    const namespace = c.metadata.namespace ?? "";
    const servers = (c.status?.servers ?? []).map((s) => s.name);
    if (servers.length === 0 || !namespaces.has(namespace)) return [];
    const settled = findCondition(c.status?.conditions, "Settled");
    return [{ namespace, name: c.metadata.name, servers, ...(settled ? { settled } : {}) }];
  });
}
