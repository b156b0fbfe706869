// The part of the NatsCluster status render-cluster owns: what the spec renders to.
// Conditions, servers, the config revision being applied and the rollout are step-rollout's.
import { jsonEqual } from "../../shared/kube/equal.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { Cluster, ClusterPlan } from "../cluster/index.ts";
import { FIELD_MANAGER } from "./apply.ts";

export type RenderedStatus = ClusterPlan["status"];

/** The fields of `status` render-cluster owns, as they stand now. */
function currentRendered(cluster: Cluster): Record<string, unknown> {
  const status = cluster.status ?? {};
  return {
    replicas: status.replicas,
    endpoints: status.endpoints,
    ...(status.jetstream?.limits ? { jetstream: { limits: status.jetstream.limits } } : {}),
  };
}

/** Server-side applies the rendered fields when they differ; true when it wrote. */
export async function writeRenderedStatus(kube: Kube, cluster: Cluster, status: RenderedStatus): Promise<boolean> {
  const current = currentRendered(cluster);
  const wanted = {
    replicas: status.replicas,
    endpoints: status.endpoints,
    ...(status.jetstream ? { jetstream: status.jetstream } : {}),
  };
  if (jsonEqual(current, wanted)) return false;
  await kube.applyStatus(
    { apiVersion: cluster.apiVersion, kind: cluster.kind, metadata: cluster.metadata, status: wanted },
    FIELD_MANAGER,
  );
  return true;
}
