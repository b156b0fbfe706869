// Objects to look at again when something they depend on changes: a
// connection turning Ready, a stream turning Ready, a grant changing.
import type { Kube } from "../../../shared/kube/client.ts";
import type { KubeObject, ObjectKey } from "../../../shared/kube/object.ts";
import { jetstreamApiVersion, objectKinds } from "../targets/kinds.ts";
import type { JetStreamObject } from "../targets/placement.ts";

const keyOfItem = (o: KubeObject): ObjectKey => ({
  apiVersion: jetstreamApiVersion,
  kind: o.kind,
  namespace: o.metadata.namespace ?? "",
  name: o.metadata.name,
});

/** The JetStream objects of a namespace, or of every namespace. */
export async function allObjects(kube: Kube, namespace?: string): Promise<JetStreamObject[]> {
  const lists = await Promise.all(
    objectKinds.map((kind) =>
      kube.list<JetStreamObject>({
        apiVersion: jetstreamApiVersion,
        kind,
        ...(namespace === undefined ? {} : { namespace }),
      }),
    ),
  );
  return lists.flat();
}

/** Objects naming this NatsConnection. */
export async function usersOfConnection(kube: Kube, namespace: string, name: string): Promise<ObjectKey[]> {
  return (await allObjects(kube))
    .filter(
      (o) =>
        o.spec.connectionRef?.name === name && (o.spec.connectionRef.namespace ?? o.metadata.namespace) === namespace,
    )
    .map(keyOfItem);
}

/** Objects in other namespaces referring into this one (what a grant there may admit). */
export async function referrersInto(kube: Kube, namespace: string): Promise<ObjectKey[]> {
  return (await allObjects(kube))
    .filter(
      (o) =>
        o.metadata.namespace !== namespace &&
        (o.spec.connectionRef?.namespace === namespace || o.spec.streamRef?.namespace === namespace),
    )
    .map(keyOfItem);
}
