import type { Kube } from "./client.ts";
import { jsonEqual } from "./equal.ts";
import type { KubeObject } from "./object.ts";

export type WithStatus<S> = KubeObject & { status?: S };

/**
 * Writes `status` through the status subresource when it differs from what
 * the object already shows, and reports whether it wrote. Writing only on a
 * change matters twice over: every write produces another update event, and
 * an unchanged write would bump the resourceVersion for nothing.
 */
export async function writeStatusIfChanged<S extends { observedGeneration?: number }>(
  kube: Kube,
  object: WithStatus<S>,
  status: Omit<S, "observedGeneration">,
  fieldManager: string,
): Promise<boolean> {
  const next = { ...status, observedGeneration: object.metadata.generation };
  if (jsonEqual(object.status, next)) return false;
  await kube.applyStatus({ apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata, status: next }, fieldManager);
  return true;
}
