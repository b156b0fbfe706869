// Which streams of a balancer's NATS cluster an evacuation is moving (B11): the balancer leaves
// them alone. An evacuation counts when its source is the balancer's NATS cluster, it is not yet
// done, and its connection reaches the same NATS system: a same-named cluster in another system
// is no concern of this balancer. The same NatsConnection settles that at once; otherwise the
// balancer's connection asks after the server the evacuation's connection reaches (same-system.ts).
import type { NatsConnection } from "@nats-io/transport-node";
import { isConditionTrue, type Kube } from "../../../shared/kube/index.ts";
import type { ConnectionPool } from "../../../shared/nats/index.ts";
import type { StreamRef } from "../pass/types.ts";
import { EVACUATION, type NatsClusterEvacuation } from "./resource.ts";
import { evacuationConnection } from "./observe.ts";
import { reachesServerOf } from "../leaders/same-system.ts";

/** The balancer as far as this check reads it: its connection and namespace. */
type BalancerRef = { spec: { connectionRef: { name: string; namespace?: string } }; metadata: { namespace: string } };

const connectionKey = (ref: { name: string; namespace?: string }, namespace: string) =>
  `${ref.namespace ?? namespace}/${ref.name}`;

/** Whether the evacuation's connection reaches the NATS system `nc` is in. */
async function sameSystem(
  kube: Kube,
  pool: ConnectionPool,
  balancer: BalancerRef,
  nc: NatsConnection,
  evacuation: NatsClusterEvacuation,
): Promise<boolean> {
  if (
    connectionKey(evacuation.spec.connectionRef, evacuation.metadata.namespace) ===
    connectionKey(balancer.spec.connectionRef, balancer.metadata.namespace)
  )
    return true;
  const theirs = await evacuationConnection(kube, pool, evacuation);
  return theirs.ok && reachesServerOf(nc, theirs.nc);
}

/** The streams of NATS cluster `cluster` with an evacuation's move requested and not yet seen complete. */
export async function streamsUnderEvacuation(
  kube: Kube,
  pool: ConnectionPool,
  balancer: BalancerRef,
  nc: NatsConnection,
  cluster: string,
  /**
   * Whether `nc` can ask `$SYS` if an evacuation is in its NATS system. An account user cannot:
   * then every evacuation of a same-named cluster counts, since leaving a stream alone is safe.
   */
  canAskSystem = true,
): Promise<StreamRef[]> {
  const evacuations = await kube.list<NatsClusterEvacuation>({
    apiVersion: EVACUATION.apiVersion,
    kind: EVACUATION.kind,
  });
  const active = evacuations.filter(
    (e) =>
      e.spec.from.cluster === cluster &&
      (e.status?.requested ?? []).length > 0 &&
      !isConditionTrue(e.status?.conditions, "Ready"),
  );
  const streams: StreamRef[] = [];
  for (const evacuation of active)
    if (!canAskSystem || (await sameSystem(kube, pool, balancer, nc, evacuation)))
      for (const r of evacuation.status?.requested ?? [])
        streams.push({ account: r.account ?? "", stream: r.stream ?? "" });
  return streams;
}
