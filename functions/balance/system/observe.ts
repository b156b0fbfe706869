// Everything one pass decides on, read and nothing else: the balancer, the other system balancers
// (which NATS cluster is whose), and the NATS cluster its connection reaches. What it means is
// decide.ts's to say.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Kube } from "../../../shared/kube/index.ts";
import { type ConnectionPool, resolveConnection } from "../../../shared/nats/index.ts";
import { leaderMovesOn, type NatsSystemBalancer, SYSTEM_BALANCER } from "./resource.ts";
import type { Reach } from "./capabilities.ts";
import { probeReach, readCluster } from "../leaders/read-cluster.ts";
import { connectionKeyOf, isOlder } from "./duplicate.ts";
import { reachesServerOf } from "../leaders/same-system.ts";
import { operatorNamespace } from "../../../shared/runtime/index.ts";
import { type MoveLease, readLease } from "../pass/lease.ts";
import type { CoveredCluster } from "../pass/rollout.ts";
import type { Snapshot } from "../leaders/snapshot.ts";
import type { StreamRef } from "../pass/types.ts";
import { type BalancerConnection, connectResolved } from "../pass/connection.ts";
import { readClusters } from "../pass/read-clusters.ts";
import { streamsUnderEvacuation } from "../evacuation/under-evacuation.ts";
import type { Reason } from "../../../shared/api/index.ts";

/** What the balancer's connection showed of its NATS cluster, or why it showed nothing. */
export type NatsView =
  | {
      kind: "read";
      snapshot: Snapshot;
      /** The connection's own account (the system account). */
      ownAccount?: string;
      /** Which accounts holding groups in scope can be stepped down; absent when leader moves are off. */
      reach?: Reach;
      /** Streams an evacuation of this NATS cluster is moving: left alone (B11). */
      evacuating?: StreamRef[];
      /** The move lease of this NATS cluster (B9). */
      lease?: MoveLease;
    }
  | { kind: "unavailable"; reason: Reason; message: string };

export interface Observed {
  balancer: NatsSystemBalancer;
  /** Every other NatsSystemBalancer, in any namespace; once the NATS cluster is read, less those in another NATS system. */
  others: NatsSystemBalancer[];
  nats: NatsView;
  /** The NatsClusters with servers in the namespaces the balancer names, for their Settled condition (B12). */
  clusters?: CoveredCluster[];
}

/** The balancer's connection, or why there is none (the connection reasons of the catalogue). */
export async function connectionOf(
  kube: Kube,
  pool: ConnectionPool,
  balancer: NatsSystemBalancer,
): Promise<BalancerConnection> {
  const referrer = {
    group: SYSTEM_BALANCER.group,
    kind: SYSTEM_BALANCER.kind,
    namespace: balancer.metadata.namespace ?? "",
  };
  return connectResolved(kube, pool, await resolveConnection(kube, referrer, balancer.spec.connectionRef));
}

/**
 * The other balancers less those shown to be in another NATS system: an older one whose reported
 * servers share names with this roster, on another connection, is asked after through its own
 * connection (same-system.ts). One that cannot be asked counts, as a duplicate is the safe guess.
 */
async function othersInMySystem(
  kube: Kube,
  pool: ConnectionPool,
  self: NatsSystemBalancer,
  nc: NatsConnection,
  others: readonly NatsSystemBalancer[],
  roster: readonly string[],
): Promise<NatsSystemBalancer[]> {
  const kept = await Promise.all(
    others.map(async (other) => {
      const namesake =
        isOlder(other, self) &&
        connectionKeyOf(other) !== connectionKeyOf(self) &&
        (other.status?.servers ?? []).some((s) => roster.includes(s.name));
      if (!namesake) return true;
      const theirs = await connectionOf(kube, pool, other);
      return !theirs.ok || (await reachesServerOf(nc, theirs.nc));
    }),
  );
  return others.filter((_, i) => kept[i]);
}

export async function observe(kube: Kube, pool: ConnectionPool, balancer: NatsSystemBalancer): Promise<Observed> {
  const [all, connected] = await Promise.all([
    kube.list<NatsSystemBalancer>({ apiVersion: SYSTEM_BALANCER.apiVersion, kind: SYSTEM_BALANCER.kind }),
    connectionOf(kube, pool, balancer),
  ]);
  const others = all.filter((b) => b.metadata.uid !== balancer.metadata.uid);
  if (!connected.ok)
    return { balancer, others, nats: { kind: "unavailable", reason: connected.reason, message: connected.message } };
  const reading = await readCluster(connected.nc);
  if (!reading.ok)
    return { balancer, others, nats: { kind: "unavailable", reason: reading.reason, message: reading.message } };
  const { snapshot, ownAccount } = reading;
  const accounts = [...new Set(snapshot.groups.map((g) => g.account))];
  const [reach, evacuating, lease, clusters, mine] = await Promise.all([
    leaderMovesOn(balancer) ? probeReach(connected.nc, accounts, ownAccount) : undefined,
    streamsUnderEvacuation(kube, pool, balancer, connected.nc, snapshot.cluster),
    // The operator's namespace in a pod; the balancer's own when run outside one.
    readLease(kube, operatorNamespace() ?? balancer.metadata.namespace, snapshot.cluster),
    readClusters(kube, balancer.metadata.namespace ?? "", connected.connection),
    othersInMySystem(kube, pool, balancer, connected.nc, others, snapshot.roster),
  ]);
  return {
    balancer,
    others: mine,
    clusters,
    nats: {
      kind: "read",
      snapshot,
      ...(ownAccount ? { ownAccount } : {}),
      ...(reach ? { reach } : {}),
      ...(evacuating.length > 0 ? { evacuating } : {}),
      lease,
    },
  };
}
