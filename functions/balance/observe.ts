// Everything one pass decides on, read and nothing else: the balancer, the other system balancers
// (which NATS cluster is whose), and the NATS cluster its connection reaches. What it means is
// decide.ts's to say.
import type { NatsConnection } from "@nats-io/transport-node";
import { KINDS } from "../../shared/api/kinds.ts";
import type { NatsClusterStatus } from "../../shared/api/cluster/nats-cluster-status.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { findCondition } from "../../shared/kube/conditions.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { connectWith, resolveConnection } from "../../shared/nats/connection.ts";
import type { ConnectionPool } from "../../shared/nats/pool.ts";
import { leaderMovesOn, type NatsSystemBalancer, SYSTEM_BALANCER } from "./balancer.ts";
import type { Reach } from "./capabilities.ts";
import { probeReach, readCluster } from "./read-cluster.ts";
import { operatorNamespace } from "../../shared/runtime/operator-namespace.ts";
import { type MoveLease, readLease } from "./lease.ts";
import type { CoveredCluster } from "./rollout.ts";
import type { Snapshot } from "./snapshot.ts";
import type { StreamRef } from "./decide-evacuation.ts";
import { streamsUnderEvacuation } from "./under-evacuation.ts";

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
  | { kind: "unavailable"; reason: string; message: string };

export interface Observed {
  balancer: NatsSystemBalancer;
  /** Every other NatsSystemBalancer, in any namespace. */
  others: NatsSystemBalancer[];
  nats: NatsView;
  /** Every NatsCluster with servers, for its Settled condition (B12). */
  clusters?: CoveredCluster[];
}

/** The balancer's connection, or why there is none (the connection reasons of the catalogue). */
export async function connectionOf(
  kube: Kube,
  pool: ConnectionPool,
  balancer: NatsSystemBalancer,
): Promise<{ ok: true; nc: NatsConnection } | { ok: false; reason: string; message: string }> {
  const referrer = {
    group: SYSTEM_BALANCER.group,
    kind: SYSTEM_BALANCER.kind,
    namespace: balancer.metadata.namespace ?? "",
  };
  const resolved = await resolveConnection(kube, referrer, balancer.spec.connectionRef);
  if (!resolved.ok) return resolved;
  return connectWith(kube, pool, resolved.connection);
}

/** Every NatsCluster that reports servers: which ones the balancer covers is decide's to say. */
export async function readClusters(kube: Kube): Promise<CoveredCluster[]> {
  const clusters = await kube.list<KubeObject & { status?: NatsClusterStatus }>({
    apiVersion: KINDS.NatsCluster.apiVersion,
    kind: KINDS.NatsCluster.kind,
  });
  return clusters.flatMap((c) => {
    const servers = (c.status?.servers ?? []).map((s) => s.name);
    if (servers.length === 0) return [];
    const settled = findCondition(c.status?.conditions, "Settled");
    return [{ namespace: c.metadata.namespace ?? "", name: c.metadata.name, servers, ...(settled ? { settled } : {}) }];
  });
}

export async function observe(kube: Kube, pool: ConnectionPool, balancer: NatsSystemBalancer): Promise<Observed> {
  const [all, clusters, connected] = await Promise.all([
    kube.list<NatsSystemBalancer>({ apiVersion: SYSTEM_BALANCER.apiVersion, kind: SYSTEM_BALANCER.kind }),
    readClusters(kube),
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
  const [reach, evacuating, lease] = await Promise.all([
    leaderMovesOn(balancer) ? probeReach(connected.nc, accounts, ownAccount) : undefined,
    streamsUnderEvacuation(kube, pool, balancer, connected.nc, snapshot.cluster),
    // The operator's namespace in a pod; the balancer's own when run outside one.
    readLease(kube, operatorNamespace() ?? balancer.metadata.namespace, snapshot.cluster),
  ]);
  return {
    balancer,
    others,
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
