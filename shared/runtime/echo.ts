import type { ObjectSnapshot, OperatorEvent } from "./event.ts";

/**
 * True when an update event is only the echo of a status write: the spec the
 * status describes is the spec the object has, the object is not being
 * deleted, it carries none of the annotations the function acts on, and the
 * function's own look at the payload (`caresAbout`) finds nothing to act on.
 * Such an event is acknowledged without touching the API server; without this
 * rule every status write would feed the function another event.
 */
export function isStatusEcho(
  event: OperatorEvent,
  actionAnnotations: readonly string[] = [],
  caresAbout?: (snapshot: ObjectSnapshot) => boolean,
): boolean {
  if (event.source !== "apiserver" || event.action !== "update" || event.snapshot === undefined) return false;
  const { metadata, status } = event.snapshot;
  const generation = metadata?.generation;
  if (generation === undefined || generation !== status?.observedGeneration) return false;
  if (metadata?.deletionTimestamp) return false;
  const annotations = metadata?.annotations ?? {};
  if (actionAnnotations.some((name) => name in annotations)) return false;
  return !(caresAbout?.(event.snapshot) ?? false);
}
