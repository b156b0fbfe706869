// What the servers answer about their gateway and leaf connections, for `status.gateways[]`,
// `status.leafRemotes[]` and their conditions (judged in ../cluster/connectivity.ts). As the
// system user, one `$SYS.REQ.SERVER.PING.GATEWAYZ` / `.LEAFZ` each, filtered to this cluster's
// servers; without one, each server's monitoring port.
import type { NatsConnection } from "@nats-io/transport-node";
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import { type ConditionUpdate, setConditions } from "../../../shared/kube/index.ts";
import { gatherReplies } from "../../../shared/nats/index.ts";
import {
  type Cluster,
  type Gatewayz,
  judgeGateways,
  judgeLeafRemotes,
  type LeafRemotes,
  type Leafz,
  monitorUrl,
  type ServerConnectivity,
} from "../../cluster/index.ts";
import { MONITOR_TIMEOUT_MS, type MonitorAddress } from "./monitor.ts";

interface PingReply<T> {
  server?: { name?: string };
  data?: T;
}

/** The inbox the cluster-controller's permissions let it read answers on. */
const INBOX_PREFIX = "_INBOX.cluster-controller";

async function ping<T>(nc: NatsConnection, cluster: Cluster, verb: string, expected: number): Promise<Map<string, T>> {
  const replies = await gatherReplies<PingReply<T>>(
    nc,
    `$SYS.REQ.SERVER.PING.${verb}`,
    { cluster: cluster.metadata.name },
    { inboxPrefix: INBOX_PREFIX, complete: (r) => r.length >= expected },
  );
  const answers = new Map<string, T>();
  for (const reply of replies) if (reply.server?.name && reply.data) answers.set(reply.server.name, reply.data);
  return answers;
}

/** Over `$SYS`: every server of the cluster that answers within the gather wait. */
export async function pingConnectivity(
  nc: NatsConnection,
  cluster: Cluster,
  servers: readonly string[],
  what: { gateways: boolean; leafs: boolean },
): Promise<ServerConnectivity[]> {
  const [gateways, leafs] = await Promise.all([
    what.gateways
      ? ping<Gatewayz>(nc, cluster, "GATEWAYZ", servers.length)
      : Promise.resolve(new Map<string, Gatewayz>()),
    what.leafs ? ping<Leafz>(nc, cluster, "LEAFZ", servers.length) : Promise.resolve(new Map<string, Leafz>()),
  ]);
  return connectivityOf(servers, gateways, leafs);
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(MONITOR_TIMEOUT_MS) });
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Over each server's monitoring port, where there is no system user. */
export async function readConnectivity(
  cluster: Cluster,
  servers: readonly string[],
  what: { gateways: boolean; leafs: boolean },
  address: MonitorAddress = monitorUrl,
): Promise<ServerConnectivity[]> {
  const gateways = new Map<string, Gatewayz>();
  const leafs = new Map<string, Leafz>();
  await Promise.all(
    servers.map(async (server) => {
      const base = address(cluster.metadata.name, cluster.metadata.namespace, server);
      const [gatewayz, leafz] = await Promise.all([
        what.gateways ? getJson<Gatewayz>(`${base}/gatewayz`) : Promise.resolve(undefined),
        what.leafs ? getJson<Leafz>(`${base}/leafz`) : Promise.resolve(undefined),
      ]);
      if (gatewayz) gateways.set(server, gatewayz);
      if (leafz) leafs.set(server, leafz);
    }),
  );
  return connectivityOf(servers, gateways, leafs);
}

function connectivityOf(
  servers: readonly string[],
  gateways: Map<string, Gatewayz>,
  leafs: Map<string, Leafz>,
): ServerConnectivity[] {
  return servers.flatMap((server) => {
    const gatewayz = gateways.get(server);
    const leafz = leafs.get(server);
    if (!gatewayz && !leafz) return [];
    return [{ server, ...(gatewayz ? { gatewayz } : {}), ...(leafz ? { leafz } : {}) }];
  });
}

/**
 * The status with `gateways[]`, `leafRemotes[]` and their conditions as judged from `answers`;
 * each is dropped once the spec no longer has a gateway or leaf remotes. `settled` is false while
 * a condition is not True, so the rollout tick keeps looking: no event says that a peer came up.
 */
export function withConnectivity(
  status: NatsClusterStatus,
  cluster: Cluster,
  leafRemotes: LeafRemotes | undefined,
  answers: readonly ServerConnectivity[] | undefined,
  now: Date,
): { status: NatsClusterStatus; settled: boolean } {
  const next: NatsClusterStatus = { ...status };
  const updates: ConditionUpdate[] = [];
  const drop = new Set<string>();
  if (cluster.spec.gateway) {
    const judged = judgeGateways(cluster, answers ?? []);
    next.gateways = judged.members;
    updates.push(judged.condition);
  } else {
    delete next.gateways;
    drop.add("GatewaysConnected");
  }
  if ((cluster.spec.leafRemotes ?? []).length > 0) {
    const judged = judgeLeafRemotes(
      cluster.spec.replicas,
      leafRemotes?.ready ?? [],
      leafRemotes?.refused ?? [],
      answers ?? [],
    );
    next.leafRemotes = judged.remotes;
    updates.push(judged.condition);
  } else {
    delete next.leafRemotes;
    drop.add("LeafnodesConnected");
  }
  const generation = cluster.metadata.generation ?? 0;
  next.conditions = setConditions(
    (status.conditions ?? []).filter((c) => !drop.has(c.type)),
    updates.map((u) => ({ ...u, observedGeneration: generation })),
    now,
  );
  return { status: next, settled: updates.every((u) => u.status === "True") };
}
