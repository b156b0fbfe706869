// What removed servers left behind (H10), pure: a server beyond `replicas` is deleted with its data
// claim only when the claim is its own (carries its labels, made before its deletion began) and
// with its ConfigMap only when this NatsCluster controls it. Whatever else holds those names is
// someone else's and is left alone, but not silently: it is recorded in `status.leftovers` (the
// removal that found it ends, and a server gone leaves nothing else to find it by) and Ready reads
// False, ReconcileFailed, naming it, until it is deleted or its server is planned again.
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import { isControlledBy, type KubeObject } from "../../../shared/kube/index.ts";
import { claimName, configMapName, isClaimLeftBehind } from "../../cluster/index.ts";
import type { Observed } from "./types.ts";

export type Leftover = NonNullable<NatsClusterStatus["leftovers"]>[number];

const keyOf = (leftover: Pick<Leftover, "kind" | "name">) => `${leftover.kind}/${leftover.name}`;

/** Whether `object`, of a removed server's name, is one this operator will not delete. */
function isLeft(observed: Observed, leftover: Leftover, object: KubeObject): boolean {
  if (object.metadata.deletionTimestamp !== undefined) return false;
  if (leftover.kind === "ConfigMap") return !isControlledBy(object, observed.cluster);
  // A claim a removal still deletes (its own, made before the phase began) is not left.
  return !isClaimLeftBehind(observed.cluster, leftover.server, object);
}

/**
 * The leftovers to keep in status: those recorded before and still there, and those of servers
 * being deleted whose StatefulSet is gone, each once, while its server is not planned again (a
 * server planned again makes the name rendered: a foreign object of it is render-cluster's to tell).
 */
export function leftoversOf(observed: Observed): Leftover[] {
  const planned = new Set(observed.plan.servers.map((s) => s.name));
  const found = new Map<string, Leftover>();
  const consider = (leftover: Leftover, object: KubeObject | undefined) => {
    if (!object || planned.has(leftover.server) || !isLeft(observed, leftover, object)) return;
    found.set(keyOf(leftover), leftover);
  };
  for (const leftover of observed.cluster.status?.leftovers ?? [])
    consider(leftover, observed.leftovers?.get(keyOf(leftover)));
  for (const removal of observed.cluster.status?.removals ?? []) {
    const server = removal.name;
    if (removal.phase !== "Deleting" || observed.statefulSets.has(server)) continue;
    consider({ kind: "PersistentVolumeClaim", name: claimName(server), server }, observed.claims?.get(server));
    consider({ kind: "ConfigMap", name: configMapName(server), server }, observed.deletingConfigMaps?.get(server));
  }
  return [...found.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
}

/** "PersistentVolumeClaim data-demo-3-0 (of demo-3)", each leftover, for Ready's message. */
export function describeLeftovers(leftovers: readonly Leftover[]): string[] {
  return leftovers.map((l) => `${l.kind} ${l.name} (of ${l.server})`);
}

/** The leftovers not recorded before: what a Warning tells once. */
export function newLeftovers(previous: NatsClusterStatus["leftovers"], now: readonly Leftover[]): Leftover[] {
  const before = new Set((previous ?? []).map(keyOf));
  return now.filter((l) => !before.has(keyOf(l)));
}
