// A NatsCluster as read from the API server: its name and namespace are always set.
import type { NatsCluster } from "../../shared/api/cluster/nats-cluster.ts";

export type Cluster = NatsCluster & { metadata: NatsCluster["metadata"] & { name: string; namespace: string } };

/** Narrows an object read from the API server; undefined when it lacks a name or namespace. */
export function asCluster(object: NatsCluster | undefined): Cluster | undefined {
  if (!object?.metadata.name || !object.metadata.namespace) return undefined;
  return object as Cluster;
}
