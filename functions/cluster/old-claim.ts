// The data claim a server leaves behind when it is deleted on its way out (`status.removals`
// phase `Deleting`). step-rollout deletes the server's StatefulSet, then its claim; until the claim
// is gone too, a delivery lost between the two must neither leave it (step-rollout carries the
// deletion on) nor let render-cluster recreate the server on it (a volume-template change would
// not apply, and a server taken out of the meta group would rejoin with its old state).
import type { KubeObject } from "../../shared/kube/index.ts";
import type { Cluster } from "./cluster.ts";
import { serverLabels } from "./names.ts";

/** Whether a claim is the server's own: it carries the server's labels (a claim someone else made is theirs). */
export function isServerClaim(cluster: string, server: string, claim: KubeObject): boolean {
  const labels = claim.metadata.labels ?? {};
  return Object.entries(serverLabels(cluster, server)).every(([k, v]) => labels[k] === v);
}

/**
 * Whether `claim` is the one a server being deleted leaves behind: the server's own claim, made
 * before its `Deleting` phase began (its replacement's claim is made after). Without either time
 * it counts as left behind: holding back is the safe side for render-cluster, and step-rollout
 * deletes only the claim it observed (by uid).
 */
export function isClaimLeftBehind(cluster: Cluster, server: string, claim: KubeObject | undefined): boolean {
  const removal = cluster.status?.removals?.find((r) => r.name === server && r.phase === "Deleting");
  if (!removal || !claim || !isServerClaim(cluster.metadata.name, server, claim)) return false;
  const made = claim.metadata.creationTimestamp;
  return made === undefined || removal.since === undefined || Date.parse(made) < Date.parse(removal.since);
}
