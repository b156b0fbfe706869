// What leads to JetStream objects besides their own events: a grant changing in the namespace
// they refer into, and the settle tick of their namespace (the objects whose Raft group is
// unsettled or moving). The settle check is dropped once none is left and no connection there
// waits for its servers.
import { keyOf, type Kube, type KubeObject, type ObjectKey } from "../../../shared/kube/index.ts";
import type { KindRelated, ScheduleDecision, TickRelated } from "../../../shared/runtime/index.ts";
import { KINDS } from "../../../shared/api/index.ts";
import { waitsForServers, type ConnectionWithStatus } from "../connect-wait.ts";
import { settleTickOf, stopSettleCheck } from "../settle.ts";
import { jetstreamApiVersion, objectKinds } from "../targets/kinds.ts";
import type { JetStreamObject } from "../types.ts";

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

/** What the status shows: a move in flight, or a replicated group without a leader or with a member behind. */
export function isUnsettledStatus(o: JetStreamObject): boolean {
  if (o.status?.transfer) return true;
  const server = o.status?.server;
  return (
    server !== undefined && server.replicas !== undefined && (!server.leader || server.replicas.some((r) => !r.current))
  );
}

/** The namespace's NatsConnections still re-checked on the settle tick (connect-wait.ts). */
export async function waitingConnections(kube: Kube, namespace: string, now: Date): Promise<ObjectKey[]> {
  const connections = await kube.list<ConnectionWithStatus>({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: KINDS.NatsConnection.kind,
    namespace,
  });
  return connections.filter((c) => waitsForServers(c.status?.conditions, now)).map((c) => keyOf(c));
}

/** A grant's change: the objects referring into its namespace, of every kind. */
export const grantReferrers: KindRelated = {
  kind: KINDS.NatsReferenceGrant,
  map: (ref, { kube }) => referrersInto(kube, ref.namespace),
};

/**
 * The settle tick: the unsettled objects of its namespace, of every kind (read after the waiting
 * connections were re-checked, so what they woke is seen). Afterwards the schedule is dropped
 * once none of them is unsettled any more and no connection there waits; that comes last, so it
 * wins over what the re-checks asked for.
 */
export const unsettledObjects: TickRelated = {
  tick: true,
  async map(work, { kube, pingSource }) {
    const namespace = settleTickOf(work, pingSource);
    if (namespace === undefined) return undefined;
    return (await allObjects(kube, namespace)).filter(isUnsettledStatus).map(keyOfItem);
  },
  async afterwards(work, keys, { kube, pingSource, now }): Promise<readonly ScheduleDecision[]> {
    const namespace = settleTickOf(work, pingSource);
    if (namespace === undefined) return [];
    const rechecked = new Set(keys.map((k) => `${k.kind}/${k.name}`));
    const still = (await allObjects(kube, namespace))
      .filter((o) => rechecked.has(`${o.kind}/${o.metadata.name}`))
      .filter(isUnsettledStatus);
    const waiting = await waitingConnections(kube, namespace, now());
    return still.length === 0 && waiting.length === 0 ? [stopSettleCheck(namespace)] : [];
  },
};
