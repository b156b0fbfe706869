import type { Kube } from "./client.ts";
import type { KubeObject } from "./object.ts";

export function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata.finalizers?.includes(finalizer) ?? false;
}

/**
 * Rewrites the finalizer list with a merge patch that carries the
 * resourceVersion that was read: the API server treats it as a precondition,
 * so a concurrent change fails with 409 instead of being overwritten.
 */
async function rewriteFinalizers(kube: Kube, object: KubeObject, next: string[]): Promise<KubeObject> {
  const key = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? "",
    name: object.metadata.name,
  };
  return kube.patch(key, { metadata: { finalizers: next, resourceVersion: object.metadata.resourceVersion } }, "merge");
}

export async function addFinalizer<T extends KubeObject>(kube: Kube, object: T, finalizer: string): Promise<T> {
  if (hasFinalizer(object, finalizer)) return object;
  return (await rewriteFinalizers(kube, object, [...(object.metadata.finalizers ?? []), finalizer])) as T;
}

export async function removeFinalizer<T extends KubeObject>(kube: Kube, object: T, finalizer: string): Promise<T> {
  if (!hasFinalizer(object, finalizer)) return object;
  return (await rewriteFinalizers(
    kube,
    object,
    (object.metadata.finalizers ?? []).filter((f) => f !== finalizer),
  )) as T;
}
