// A NatsCluster as read from the API server: its name and namespace are always set.
import type { NatsCluster } from "../../shared/api/index.ts";
import type { KubeObject, ObjectMeta } from "../../shared/kube/index.ts";

export type Cluster = Omit<NatsCluster, "metadata"> &
  KubeObject & { metadata: ObjectMeta & { name: string; namespace: string } };

/** Narrows an object read from the API server; undefined when it lacks a name or namespace. */
export function asCluster(object: KubeObject | undefined): Cluster | undefined {
  if (!object?.metadata.name || !object.metadata.namespace) return undefined;
  return object as Cluster;
}
