// The meta-join guard for running servers (pure). nats-server cannot merge two JetStream meta
// groups: servers that formed one of their own and are then given a gateway into a supercluster
// (a remote added, a domain dropped) would bring it into the supercluster's, a split. Such servers
// keep their last render; render-cluster guards new servers on old claims the same way.
import { CLUSTER_ANNOTATIONS, CLUSTER_REASONS } from "../../../shared/api/index.ts";
import {
  claimName,
  CONFIG_KEY,
  configMapName,
  joinsSuperclusterMetaGroup,
  ordinalOf,
  type Hold,
} from "../../cluster/index.ts";
import type { Observed } from "../nats-cluster/types.ts";
import type { ServerReport } from "./snapshot.ts";

export const OWN_META_GROUP = CLUSTER_REASONS.OwnMetaGroup;
export const META_UNOBSERVED = CLUSTER_REASONS.ObservationFailed;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parse(config: string | undefined): Record<string, unknown> | undefined {
  if (config === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(config);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a running config may hold a meta group that is not the supercluster's: it runs JetStream
 * without a domain of its own and dials no other cluster's gateway. A config that already dials one
 * has been in the supercluster's meta group since it started; one without JetStream holds none.
 * An unreadable config may hold anything.
 */
function mayRunOwnGroup(running: Record<string, unknown> | undefined): boolean {
  if (!running) return true;
  const jetstream = running["jetstream"];
  if (!isObject(jetstream)) return false;
  if (jetstream["domain"] !== undefined) return true;
  const gateway = running["gateway"];
  const dialled = isObject(gateway) && Array.isArray(gateway["gateways"]) ? gateway["gateways"] : [];
  return dialled.length === 0;
}

/** What the servers of this cluster tell of their meta group. */
type GroupView = { kind: "own"; peers: number } | { kind: "spans" } | { kind: "unseen"; why: string[] };

/** Why a server's report says nothing of the meta group, or undefined when it does. */
function silence(server: string, report: ServerReport | undefined): string | undefined {
  if (!report || report.varz?.server_name !== server)
    return report?.failure ?? (report?.varz ? "answers as another server" : "no answer");
  if (!report.jsz?.meta_cluster) return report.failure ?? "reports no meta group";
  if (!report.jsz.meta_cluster.leader) return "its meta group has no leader";
  return undefined;
}

/**
 * The meta group the cluster's servers are in. Only its leader lists the peers (nats-server leaves
 * `replicas` out of a follower's /jsz), so without the leader's answer the followers tell only that
 * it spans other clusters, when the leader they name is not ours. A peer is ours by its name (a
 * server removed but still listed is one too): server names are unique across a supercluster.
 */
function groupView(cluster: string, servers: ReadonlySet<string>, reports: readonly ServerReport[]): GroupView {
  const ours = (peer: string) => ordinalOf(cluster, peer) !== undefined;
  const reportOf = (server: string) => reports.find((r) => r.server === server);
  const answering = [...servers].flatMap((server) => {
    const report = reportOf(server);
    const meta = silence(server, report) === undefined ? report?.jsz?.meta_cluster : undefined;
    return meta ? [{ server, meta }] : [];
  });
  const leader = answering.find((a) => a.meta.leader === a.server);
  if (leader) {
    const peers = new Set([leader.server, ...(leader.meta.replicas ?? []).map((r) => r.name)]);
    return [...peers].every(ours) ? { kind: "own", peers: peers.size } : { kind: "spans" };
  }
  if (answering.some((a) => !ours(a.meta.leader ?? ""))) return { kind: "spans" };
  const named = answering.map((a) => a.meta.leader ?? "").find((l) => l !== "");
  const why = [...servers].sort().flatMap((server) => {
    const reason = silence(server, reportOf(server));
    return reason ? [`${server}: ${reason}`] : [];
  });
  return { kind: "unseen", why: why.length > 0 ? why : [`the meta leader ${named ?? ""} is not observed`] };
}

const list = (names: readonly string[]) => names.join(", ");

function ownGroupMessage(observed: Observed, servers: readonly string[], peers: number): string {
  const { cluster } = observed;
  const namespace = cluster.metadata.namespace;
  const one = servers.length === 1;
  const existing = [...observed.statefulSets.keys()].sort(
    (a, b) => (ordinalOf(cluster.metadata.name, a) ?? 0) - (ordinalOf(cluster.metadata.name, b) ?? 0),
  );
  // Without a claim template the store is an emptyDir, gone with the NatsCluster.
  const claims = cluster.spec.jetstream?.volumeClaimTemplate
    ? ` and its claims (kubectl -n ${namespace} delete pvc ${existing.map(claimName).join(" ")})`
    : "";
  return (
    `${one ? "server" : "servers"} ${list(servers)} ${one ? "runs" : "run"} a JetStream meta group of ` +
    `${one ? "its" : "their"} own (${peers} peer${peers === 1 ? "" : "s"}, all in this cluster); given the gateway ` +
    `remotes ${one ? "it" : "they"} would bring it into the supercluster's, which nats-server cannot merge, so ` +
    `${one ? "it keeps its" : "they keep their"} last config. Revert the remotes (or the domain) to run on as before; ` +
    `to join, the servers must start empty: move the streams off, delete this NatsCluster (it waits for its streams to go, ` +
    `or for the ${CLUSTER_ANNOTATIONS.forceDelete} annotation)${claims}, and create it again with the remotes`
  );
}

/**
 * Holds the rollout while existing servers that may run a meta group of their own would take a
 * config that joins the supercluster's: `OwnMetaGroup` when the meta leader lists only servers of
 * this NatsCluster as peers, `ObservationFailed` while the group cannot be read. Undefined when no
 * existing server would join, or their meta group already spans other clusters.
 */
export function judgeMetaJoin(observed: Observed): Hold | undefined {
  const { cluster, plan, statefulSets, configMaps, reports } = observed;
  if (!joinsSuperclusterMetaGroup(cluster)) return undefined;
  const joining = plan.servers
    .map((s) => s.name)
    .filter((server) => statefulSets.has(server))
    .filter((server) => mayRunOwnGroup(parse(configMaps.get(configMapName(server))?.data?.[CONFIG_KEY])));
  if (joining.length === 0) return undefined;

  const view = groupView(cluster.metadata.name, new Set(statefulSets.keys()), reports);
  if (view.kind === "spans") return undefined;
  if (view.kind === "own") return { reason: OWN_META_GROUP, message: ownGroupMessage(observed, joining, view.peers) };
  return {
    reason: META_UNOBSERVED,
    message:
      `the gateway remotes would bring ${list(joining)} into the supercluster's JetStream meta group; they wait ` +
      `until their own is observed, to tell whether it spans other clusters: ${view.why.join("; ")}`,
  };
}
