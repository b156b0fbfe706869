// One picture of the NATS cluster from every server's monitoring answers: who answered,
// the meta group, and every stream and consumer Raft group as its leader sees it.

export interface Varz {
  server_name?: string;
  server_id?: string;
  version?: string;
  metadata?: Record<string, string>;
}

interface JszPeer {
  name: string;
  current?: boolean;
  offline?: boolean;
  lag?: number;
}
interface JszCluster {
  leader?: string;
  replicas?: JszPeer[];
}
export interface Jsz {
  meta_cluster?: JszCluster;
  account_details?: {
    name: string;
    stream_detail?: {
      name: string;
      cluster?: JszCluster;
      config?: { num_replicas?: number };
      consumer_detail?: { name: string; cluster?: JszCluster }[];
    }[];
  }[];
}

/** What one server's monitoring port answered; undefined fields did not answer. */
export interface ServerReport {
  server: string;
  varz?: Varz;
  jsz?: Jsz;
  /** Why a request went unanswered (`ECONNREFUSED`, `HTTP 503`, ...), when one did. */
  failure?: string;
}

export interface GroupMember {
  name: string;
  current: boolean;
  offline: boolean;
}

export interface RaftGroup {
  /** `meta`, `stream S` or `consumer S/C` (prefixed by the account outside the global one). */
  label: string;
  leader?: string;
  /** False when no server reports itself leader and the leader is only named by a follower. */
  selfReported: boolean;
  members: GroupMember[];
  /** The copies a stream's config asks for, when its leader reported it. */
  replicas?: number;
}

export interface Snapshot {
  /** Every server expected to answer, answering or not. */
  roster: string[];
  silent: string[];
  metaLeader?: string;
  /** Servers in the meta group; empty without JetStream. */
  metaMembers: string[];
  groups: RaftGroup[];
}

const member = (peer: JszPeer): GroupMember => ({
  name: peer.name,
  current: peer.current === true && peer.offline !== true,
  offline: peer.offline === true,
});

function groupFrom(
  label: string,
  views: { reporter: string; cluster: JszCluster }[],
  roster: ReadonlySet<string>,
): RaftGroup {
  const own = views.find((v) => v.cluster.leader === v.reporter);
  if (own) {
    const members = [
      { name: own.reporter, current: true, offline: false },
      ...(own.cluster.replicas ?? []).map(member),
    ];
    return {
      label,
      leader: own.reporter,
      selfReported: true,
      members: members.filter((m) => label !== "meta" || roster.has(m.name)),
    };
  }
  const named = views.map((v) => v.cluster.leader).find((l) => l !== undefined && l !== "");
  return {
    label,
    ...(named ? { leader: named } : {}),
    selfReported: false,
    members: views.map((v) => ({ name: v.reporter, current: false, offline: false })),
  };
}

/** Why no server counts as answering, server by server: what a user reads when Settled is Unknown. */
export function whyUnobserved(roster: readonly string[], reports: readonly ServerReport[], jetstream: boolean): string {
  if (roster.length === 0) return "no server exists yet";
  return roster
    .map((server) => {
      const report = reports.find((r) => r.server === server);
      const name = report?.varz?.server_name;
      if (name !== undefined && name !== server) return `${server}: its address answers as ${name}`;
      if (report?.failure !== undefined) return `${server}: ${report.failure}`;
      return `${server}: ${jetstream && report?.varz ? "no JetStream report" : "no answer"}`;
    })
    .join("; ");
}

/** How the servers run JetStream: not at all, one server alone (no meta group), or clustered. */
export type JetStreamMode = "none" | "standalone" | "clustered";

/**
 * Merges the reports; undefined when no server answered at all. `metaLeader` is the meta leader's
 * own report when it sits in another NATS cluster (C23): its view of the meta group, this
 * cluster's servers among its peers, stands for the followers'.
 */
export function mergeSnapshot(
  roster: readonly string[],
  reports: readonly ServerReport[],
  jetstream: JetStreamMode,
  metaLeader?: ServerReport,
): Snapshot | undefined {
  const answered = reports.filter(
    (r) => r.varz?.server_name === r.server && (jetstream === "none" || r.jsz !== undefined),
  );
  if (answered.length === 0) return undefined;
  const names = new Set(roster);
  const silent = roster.filter((s) => !answered.some((r) => r.server === s));
  if (jetstream === "none") return { roster: [...roster], silent, metaMembers: [], groups: [] };

  const metaViews = [...answered, ...(metaLeader ? [metaLeader] : [])].flatMap((r) =>
    r.jsz?.meta_cluster ? [{ reporter: r.server, cluster: r.jsz.meta_cluster }] : [],
  );
  let meta = groupFrom("meta", metaViews, names);
  if (!meta.selfReported) {
    // Judged from the followers: the leader they all name, each current if it names it.
    const named = new Set(metaViews.map((v) => v.cluster.leader ?? ""));
    const leader = named.size === 1 ? [...named][0] : undefined;
    meta = {
      label: "meta",
      ...(leader ? { leader } : {}),
      selfReported: false,
      members: metaViews.map((v) => ({
        name: v.reporter,
        current: leader !== undefined && v.cluster.leader === leader,
        offline: false,
      })),
    };
  }

  const views = new Map<string, { reporter: string; cluster: JszCluster }[]>();
  const configured = new Map<string, number>();
  const add = (label: string, reporter: string, cluster: JszCluster | undefined) => {
    if (!cluster) return;
    views.set(label, [...(views.get(label) ?? []), { reporter, cluster }]);
  };
  for (const report of answered) {
    for (const account of report.jsz?.account_details ?? []) {
      const prefix = account.name === "$G" ? "" : `${account.name} `;
      for (const stream of account.stream_detail ?? []) {
        add(`stream ${prefix}${stream.name}`, report.server, stream.cluster);
        if (stream.cluster?.leader === report.server && stream.config?.num_replicas !== undefined)
          configured.set(`stream ${prefix}${stream.name}`, stream.config.num_replicas);
        for (const consumer of stream.consumer_detail ?? [])
          add(`consumer ${prefix}${stream.name}/${consumer.name}`, report.server, consumer.cluster);
      }
    }
  }
  const groups = [...views.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, v]) => {
      const group = groupFrom(label, v, names);
      const replicas = configured.get(label);
      return replicas !== undefined ? { ...group, replicas } : group;
    });
  if (jetstream === "standalone") return { roster: [...roster], silent, metaMembers: [], groups };
  return {
    roster: [...roster],
    silent,
    ...(meta.leader ? { metaLeader: meta.leader } : {}),
    metaMembers: meta.members.map((m) => m.name),
    groups: [meta, ...groups],
  };
}

/** Whether the servers run a JetStream meta group (clustered JetStream; a standalone server has none). */
export function hasMetaGroup(snapshot: Snapshot): boolean {
  return snapshot.groups.some((g) => g.label === "meta");
}

export type SettledReason =
  "AllGroupsCurrent" | "ServersSilent" | "GroupsLeaderless" | "MembersOffline" | "GroupsCatchingUp";

export interface Unsettled {
  label: string;
  reason: "leaderless" | "offline" | "behind" | "short";
  servers: string[];
}

export interface Verdict {
  settled: boolean;
  reason: SettledReason;
  message: string;
  unsettled: Unsettled[];
  silent: string[];
}

export const SETTLED_MESSAGE = "every Raft group has a leader and every member is current";

/**
 * Whether the cluster is Settled: every group has a leader, no member is offline or behind,
 * no server is silent. `ignoring` leaves one server's own silence and memberships out (a
 * server being removed), but not groups it leaves leaderless.
 */
export function judgeSettled(snapshot: Snapshot, ignoring?: string): Verdict {
  const silent = snapshot.silent.filter((s) => s !== ignoring);
  const unsettled: Unsettled[] = [];
  for (const group of snapshot.groups) {
    if (!group.leader || (!group.selfReported && group.members.length === 0)) {
      unsettled.push({ label: group.label, reason: "leaderless", servers: group.members.map((m) => m.name) });
      continue;
    }
    const members = group.members.filter((m) => m.name !== ignoring);
    const offline = members.filter((m) => m.offline).map((m) => m.name);
    if (offline.length > 0) {
      unsettled.push({ label: group.label, reason: "offline", servers: offline });
      continue;
    }
    const behind = members.filter((m) => !m.current).map((m) => m.name);
    if (behind.length > 0) {
      unsettled.push({ label: group.label, reason: "behind", servers: behind });
      continue;
    }
    // A copy the server is still to place back (a replaced server rejoining under its name).
    // Counted only where the roster could hold every copy, so a stream placed beyond this cluster
    // or asking for more copies than servers does not hold rollouts for good.
    if (
      group.replicas !== undefined &&
      group.members.length < group.replicas &&
      group.replicas <= snapshot.roster.length
    )
      unsettled.push({ label: group.label, reason: "short", servers: [] });
  }
  if (silent.length > 0)
    return {
      settled: false,
      reason: "ServersSilent",
      message: `${silent.join(", ")} did not answer`,
      unsettled,
      silent,
    };
  const count = (reason: Unsettled["reason"]) => unsettled.filter((u) => u.reason === reason);
  const describe = (list: Unsettled[], what: string) => {
    const servers = [...new Set(list.flatMap((u) => u.servers))].sort();
    const groups = `${list.length} Raft group${list.length === 1 ? "" : "s"}`;
    return `${groups} ${list.length === 1 ? "has" : "have"} a member${servers.length > 0 ? ` on ${servers.join(", ")}` : ""} that is ${what}`;
  };
  const leaderless = count("leaderless");
  if (leaderless.length > 0)
    return {
      settled: false,
      reason: "GroupsLeaderless",
      message: `${leaderless.length} Raft group${leaderless.length === 1 ? " has" : "s have"} no leader`,
      unsettled,
      silent,
    };
  const offline = count("offline");
  if (offline.length > 0)
    return { settled: false, reason: "MembersOffline", message: describe(offline, "offline"), unsettled, silent };
  const behind = count("behind");
  if (behind.length > 0)
    return { settled: false, reason: "GroupsCatchingUp", message: describe(behind, "not current"), unsettled, silent };
  const short = count("short");
  if (short.length > 0)
    return {
      settled: false,
      reason: "GroupsCatchingUp",
      message: `${short.length} Raft group${short.length === 1 ? " has" : "s have"} fewer copies than configured: ${short
        .slice(0, 3)
        .map((u) => u.label)
        .join(", ")}${short.length > 3 ? ` and ${short.length - 3} more` : ""}`,
      unsettled,
      silent,
    };
  return { settled: true, reason: "AllGroupsCurrent", message: SETTLED_MESSAGE, unsettled, silent };
}

/** Up to five unsettled groups for a gate message, then "and N more". */
export function describeUnsettled(verdict: Verdict): string {
  if (verdict.silent.length > 0) return `${verdict.silent.join(", ")} did not answer`;
  const shown = verdict.unsettled
    .slice(0, 5)
    .map((u) => `${u.label} ${u.reason}${u.servers.length > 0 ? ` (${u.servers.join(", ")})` : ""}`);
  const more = verdict.unsettled.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}
