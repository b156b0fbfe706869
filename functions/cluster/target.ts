// Which NatsCluster an event is about: the object itself, or the owner of a child StatefulSet.
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import type { OperatorEvent } from "../../shared/runtime/event.ts";
import { asCluster, type Cluster } from "./cluster.ts";
import { CLUSTER_API_VERSION, CLUSTER_KIND } from "./names.ts";

export type Target = { kind: "cluster"; namespace: string; name: string } | { kind: "none"; reason: string };

/** Name and namespace of the NatsCluster the event concerns, without reading it. */
export async function resolveTarget(kube: Kube, event: OperatorEvent): Promise<Target> {
  if (event.source === "ping") {
    const namespace = typeof event.work["namespace"] === "string" ? event.work["namespace"] : undefined;
    const name = typeof event.work["cluster"] === "string" ? event.work["cluster"] : undefined;
    return namespace && name
      ? { kind: "cluster", namespace, name }
      : { kind: "none", reason: "tick names no NatsCluster" };
  }
  const { ref } = event;
  if (ref.kind === CLUSTER_KIND) return { kind: "cluster", namespace: ref.namespace, name: ref.name };
  if (ref.kind !== "StatefulSet") return { kind: "none", reason: `${ref.kind} is not a NatsCluster child` };
  const child = await kube.get<KubeObject>({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    namespace: ref.namespace,
    name: ref.name,
  });
  if (child) {
    const owner = child.metadata.ownerReferences?.find(
      (o) => o.controller && o.kind === CLUSTER_KIND && o.apiVersion.startsWith("cluster.nats-operator.io/"),
    );
    return owner
      ? { kind: "cluster", namespace: ref.namespace, name: owner.name }
      : { kind: "none", reason: `StatefulSet ${ref.name} has no NatsCluster owner` };
  }
  // A deleted server: its name is `<cluster>-<ordinal>`.
  const match = /^(.+)-(0|[1-9][0-9]*)$/.exec(ref.name);
  return match?.[1]
    ? { kind: "cluster", namespace: ref.namespace, name: match[1] }
    : { kind: "none", reason: `StatefulSet ${ref.name} is gone` };
}

export async function readCluster(kube: Kube, namespace: string, name: string): Promise<Cluster | undefined> {
  return asCluster(
    await kube.get<KubeObject>({ apiVersion: CLUSTER_API_VERSION, kind: CLUSTER_KIND, namespace, name }),
  );
}
