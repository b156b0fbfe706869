import type { Kube } from "./client.ts";
import { jsonEqual } from "./equal.ts";
import type { KubeObject } from "./object.ts";

export type WithStatus<S> = KubeObject & { status?: S };

/**
 * Writes `status` through the status subresource when it differs from what
 * the object already shows, and reports whether it wrote. Writing only on a
 * change matters twice over: every write produces another update event, and
 * an unchanged write would bump the resourceVersion for nothing.
 *
 * With `guarded`, the write holds only if nobody wrote the object since it
 * was read (409 otherwise): a slow reconcile must not overwrite the newer
 * observation of a concurrent one. Leave it off where several functions own
 * different status fields of one object, or they would conflict needlessly.
 */
export async function writeStatusIfChanged<S extends { observedGeneration?: number }>(
  kube: Kube,
  object: WithStatus<S>,
  status: Omit<S, "observedGeneration">,
  fieldManager: string,
  options: { guarded?: boolean } = {},
): Promise<boolean> {
  const next = { ...status, observedGeneration: object.metadata.generation };
  if (jsonEqual(object.status, next)) return false;
  await kube.applyStatus(
    { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata, status: next },
    fieldManager,
    options,
  );
  return true;
}
