// The part of the NatsCluster status render-cluster owns: what the spec renders to.
// Conditions, servers, the config revision being applied and the rollout are step-rollout's.
import type { Cluster, ClusterPlan } from "../cluster/index.ts";

export type RenderedStatus = ClusterPlan["status"];

/** The fields render-cluster writes, as the plan renders them. */
export function renderedStatus(planned: RenderedStatus): RenderedStatus {
  return {
    replicas: planned.replicas,
    endpoints: planned.endpoints,
    ...(planned.jetstream ? { jetstream: planned.jetstream } : {}),
  };
}

/** The fields of `status` render-cluster owns, as they stand now: what a write is compared with. */
export function renderedFields(status: Cluster["status"]): Record<string, unknown> {
  return {
    replicas: status?.replicas,
    endpoints: status?.endpoints,
    ...(status?.jetstream?.limits ? { jetstream: { limits: status.jetstream.limits } } : {}),
  };
}
