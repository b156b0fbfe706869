// The part of the NatsCluster status render-cluster owns: what the spec renders to.
// Conditions, servers, the config revision being applied and the rollout are step-rollout's.
import type { Kube } from "../../shared/kube/client.ts";
import { writeStatus } from "../../shared/kube/status.ts";
import type { Cluster, ClusterPlan } from "../cluster/index.ts";
import { FIELD_MANAGER } from "./apply.ts";

export type RenderedStatus = ClusterPlan["status"];

/** The fields of `status` render-cluster owns, as they stand now. */
function currentRendered(status: Cluster["status"]): Record<string, unknown> {
  return {
    replicas: status?.replicas,
    endpoints: status?.endpoints,
    ...(status?.jetstream?.limits ? { jetstream: { limits: status.jetstream.limits } } : {}),
  };
}

/** Server-side applies the rendered fields when they differ; true when it wrote. */
export async function writeRenderedStatus(kube: Kube, cluster: Cluster, status: RenderedStatus): Promise<boolean> {
  const wanted = {
    replicas: status.replicas,
    endpoints: status.endpoints,
    ...(status.jetstream ? { jetstream: status.jetstream } : {}),
  };
  // Unguarded: step-rollout owns the other fields of this status and writes them concurrently.
  const written = await writeStatus(kube, cluster, wanted, FIELD_MANAGER, { owned: currentRendered });
  return written.kind === "written";
}
