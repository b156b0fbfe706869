// Which rendered objects a delivery writes (pure): shared objects when they differ from the render,
// a server's objects only when the server does not exist yet (existing servers change only
// through step-rollout's steps), and nothing of a rendered name this NatsCluster does not control.
import { RENDERED_ANNOTATIONS } from "../../shared/api/index.ts";
import { containsRendered, describeObject, isControlledBy, type KubeObject } from "../../shared/kube/index.ts";
import {
  claimName,
  type Cluster,
  type ClusterPlan,
  isClaimLeftBehind,
  joinsSuperclusterMetaGroup,
} from "../cluster/index.ts";
import { type RenderedObjects, sharedKey } from "./observe.ts";

export type RenderWrite =
  /** A server-side apply under render-cluster's field manager. */
  | { kind: "apply"; object: KubeObject }
  /** A create that never applies over: a StatefulSet that appeared meanwhile belongs to the rollout. */
  | { kind: "create"; object: KubeObject; server: string }
  /** An object of ours the spec no longer wants (a listener's Service, the leaf remotes' Secret). */
  | { kind: "delete"; object: KubeObject };

export interface RenderWrites {
  /** In the order they are made: shared objects, then each new server's ConfigMap and StatefulSet. */
  writes: RenderWrite[];
  /** Objects of a rendered name this NatsCluster does not control, left untouched. */
  foreign: string[];
  /**
   * Servers held back because their old claim is still there: terminating, or left behind by the
   * server's deletion on its way out (step-rollout deletes it next).
   */
  claimTerminating: string[];
  /**
   * Claims older than the NatsCluster, of servers held back because they would join a
   * supercluster's meta group with JetStream state from before (OwnMetaGroup).
   */
  claimsPredating: string[];
}

/** Whether a claim was made before the NatsCluster (so by an earlier one of that name). */
function predates(claim: KubeObject, cluster: Cluster): boolean {
  const made = claim.metadata.creationTimestamp;
  const born = cluster.metadata.creationTimestamp;
  return made !== undefined && born !== undefined && Date.parse(made) < Date.parse(born);
}

export function renderWrites(
  cluster: Cluster,
  plan: ClusterPlan,
  rendered: RenderedObjects,
  createServers: boolean,
): RenderWrites {
  const result: RenderWrites = { writes: [], foreign: [], claimTerminating: [], claimsPredating: [] };
  const joiningMetaGroup = joinsSuperclusterMetaGroup(cluster);
  for (const object of plan.shared) {
    const existing = rendered.shared.get(sharedKey(object));
    if (existing && !isControlledBy(existing, cluster)) result.foreign.push(describeObject(existing));
    else if (!existing || !containsRendered(existing, object)) result.writes.push({ kind: "apply", object });
  }
  for (const retired of plan.retired) {
    const existing = rendered.shared.get(`${retired.kind}/${retired.name}`);
    // Only our own is deleted; someone else's object of that name is no longer ours to report.
    if (existing && isControlledBy(existing, cluster)) result.writes.push({ kind: "delete", object: existing });
  }
  for (const server of plan.servers) {
    const objects = rendered.servers.get(server.name) ?? {};
    const foreign = [objects.statefulSet, objects.configMap].filter(
      (o): o is KubeObject => o !== undefined && !isControlledBy(o, cluster),
    );
    if (foreign.length > 0) {
      result.foreign.push(...foreign.map(describeObject));
      continue;
    }
    if (objects.statefulSet) {
      // A missing ConfigMap of a server already on this revision is simply put back.
      const onTarget =
        objects.statefulSet.metadata.annotations?.[RENDERED_ANNOTATIONS.configRevision] === plan.revision;
      if (!objects.configMap && onTarget) result.writes.push({ kind: "apply", object: server.configMap });
      continue;
    }
    if (!createServers) continue;
    if (objects.claim?.metadata.deletionTimestamp) {
      result.claimTerminating.push(server.name);
      continue;
    }
    // A server being replaced comes back on a new claim only: never on the one its deletion left.
    if (isClaimLeftBehind(cluster, server.name, objects.claim)) {
      result.claimTerminating.push(server.name);
      continue;
    }
    if (joiningMetaGroup && objects.claim && predates(objects.claim, cluster)) {
      result.claimsPredating.push(claimName(server.name));
      continue;
    }
    result.writes.push({ kind: "apply", object: server.configMap });
    result.writes.push({ kind: "create", object: server.statefulSet, server: server.name });
  }
  return result;
}
