// Writes what the plan says may be written: shared objects always, a server's objects only
// when the server does not exist yet (existing servers change only through rollout steps).
import { RENDERED_ANNOTATIONS } from "../../shared/api/constants/annotations.ts";
import { FIELD_MANAGERS } from "../../shared/api/constants/field-managers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { guarded } from "../../shared/kube/guarded.ts";
import type { Cluster, ClusterPlan } from "../cluster/index.ts";
import { containsRendered } from "../../shared/kube/contains.ts";
import { describeObject, isControlledBy } from "../../shared/kube/ownership.ts";
import { sharedKey, type RenderObservation } from "./observe.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.renderCluster;

export interface ApplyResult {
  /** Objects of a rendered name this NatsCluster does not control, left untouched. */
  foreign: string[];
  created: string[];
  /** Servers held back because their old claim is still terminating. */
  claimTerminating: string[];
}

export async function applyPlan(
  kube: Kube,
  cluster: Cluster,
  plan: ClusterPlan,
  seen: RenderObservation,
  createServers: boolean,
): Promise<ApplyResult> {
  const result: ApplyResult = { foreign: [], created: [], claimTerminating: [] };
  for (const object of plan.shared) {
    const existing = seen.shared.get(sharedKey(object));
    if (existing && !isControlledBy(existing, cluster)) result.foreign.push(describeObject(existing));
    else if (!existing || !containsRendered(existing, object)) await kube.apply(object, FIELD_MANAGER);
  }
  for (const server of plan.servers) {
    const objects = seen.servers.get(server.name) ?? {};
    const foreign = [objects.statefulSet, objects.configMap].filter(
      (o) => o !== undefined && !isControlledBy(o, cluster),
    );
    if (foreign.length > 0) {
      result.foreign.push(...foreign.map((o) => (o ? describeObject(o) : "")));
      continue;
    }
    if (objects.statefulSet) {
      // A missing ConfigMap of a server already on this revision is simply put back.
      const onTarget =
        objects.statefulSet.metadata.annotations?.[RENDERED_ANNOTATIONS.configRevision] === plan.revision;
      if (!objects.configMap && onTarget) await kube.apply(server.configMap, FIELD_MANAGER);
      continue;
    }
    if (!createServers) continue;
    if (objects.claim?.metadata.deletionTimestamp) {
      result.claimTerminating.push(server.name);
      continue;
    }
    await kube.apply(server.configMap, FIELD_MANAGER);
    // Created, never applied over: a StatefulSet that appeared meanwhile belongs to the rollout.
    if ((await guarded(() => kube.create(server.statefulSet))).kind === "written") result.created.push(server.name);
  }
  return result;
}
