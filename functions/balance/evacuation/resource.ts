// The NatsClusterEvacuation as the function reads it: the API schema's types and the constants
// of its pacing.
import {
  KINDS,
  type NatsClusterEvacuation as EvacuationResource,
  type NatsClusterEvacuationStatus,
} from "../../../shared/api/index.ts";
import type { KubeObject, ObjectMeta } from "../../../shared/kube/index.ts";

export type { NatsClusterEvacuationStatus };
/** The schema's type, as the API server returns it: named and namespaced. */
export type NatsClusterEvacuation = Omit<EvacuationResource, "metadata"> &
  KubeObject & { metadata: ObjectMeta & { name: string; namespace: string } };
export type RequestedMove = NonNullable<NatsClusterEvacuationStatus["requested"]>[number];
export type PinnedResource = NonNullable<NatsClusterEvacuationStatus["pinned"]>[number];
export type StalePlacement = NonNullable<NatsClusterEvacuationStatus["stalePlacement"]>[number];

export const EVACUATION = KINDS.NatsClusterEvacuation;

/** Moves in flight at once: a few, so the target servers catch up without being flooded. */
export const MAX_IN_FLIGHT = 4;

/**
 * A requested move counts as in flight this long even before any copy shows outside the source:
 * the meta leader may take a moment to add the new peers.
 */
export const REQUEST_GRACE_MS = 60_000;

export const describeEvacuation = (e: NatsClusterEvacuation) =>
  `NatsClusterEvacuation ${e.metadata.namespace}/${e.metadata.name}`;

/** Whether `tags` carries every one of `wanted`, compared as nats-server does (case-insensitive). */
export function carriesAll(tags: readonly string[], wanted: readonly string[]): boolean {
  const have = new Set(tags.map((t) => t.toLowerCase()));
  return wanted.every((t) => have.has(t.toLowerCase()));
}
