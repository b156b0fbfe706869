// One picture of the NATS cluster from every server's JSZ pages: who answered, the meta leader,
// and every stream and consumer Raft group with its leader and members as the leader sees them.
import type { JszCluster, JszPeer, ServerReport } from "./jsz.ts";

export interface Member {
  name: string;
  current: boolean;
  offline: boolean;
  lag: number;
}

export interface Group {
  kind: "stream" | "consumer";
  /** The account's key (`A…` for a JWT account; its name for a config account). */
  account: string;
  stream: string;
  consumer?: string;
  /** The server that reports itself leader; none while the group is leaderless. */
  leader?: string;
  members: Member[];
  /** The stream's declared `placement.cluster`, if any. */
  placementCluster?: string;
  /** The stream's declared `placement.tags`, if any: every new copy must land on a server carrying them. */
  placementTags?: string[];
}

export interface Snapshot {
  /** The NATS cluster the connection reaches. */
  cluster: string;
  /** Every server of the NATS cluster, answering or not. */
  roster: string[];
  /** Servers on the roster that did not answer every JSZ page. */
  silent: string[];
  metaLeader?: string;
  /** Sorted by account, stream, then consumer (a stream before its consumers). */
  groups: Group[];
  /** Server tags by server, from STATSZ; absent where not read. */
  tags?: ReadonlyMap<string, readonly string[]>;
}

const memberOf = (peer: JszPeer): Member => ({
  name: peer.name,
  current: peer.current === true && peer.offline !== true,
  offline: peer.offline === true,
  lag: peer.lag ?? 0,
});

interface View {
  reporter: string;
  cluster: JszCluster;
}

/** The leader's view when a server reports itself leader; otherwise a leaderless group of its holders. */
function membersOf(views: readonly View[]): { leader?: string; members: Member[] } {
  const own = views.find((v) => v.cluster.leader === v.reporter);
  if (!own) return { members: views.map((v) => ({ name: v.reporter, current: false, offline: false, lag: 0 })) };
  return {
    leader: own.reporter,
    members: [
      { name: own.reporter, current: true, offline: false, lag: 0 },
      ...(own.cluster.replicas ?? []).map(memberOf),
    ],
  };
}

/** The meta leader: the server that says it leads, else the one every answering server names. */
function metaLeaderOf(views: readonly View[]): string | undefined {
  const own = views.find((v) => v.cluster.leader === v.reporter);
  if (own) return own.reporter;
  const named = new Set(views.map((v) => v.cluster.leader ?? ""));
  const [only] = [...named];
  return named.size === 1 && only ? only : undefined;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Merges the reports of the roster's servers into one snapshot. */
export function mergeSnapshot(
  cluster: string,
  roster: readonly string[],
  reports: readonly ServerReport[],
  tags?: ReadonlyMap<string, readonly string[]>,
): Snapshot {
  const answered = reports.filter((r) => r.jsz !== undefined && roster.includes(r.server));
  const silent = roster.filter((s) => !answered.some((r) => r.server === s));
  const metaViews = answered.flatMap((r) =>
    r.jsz?.meta_cluster ? [{ reporter: r.server, cluster: r.jsz.meta_cluster }] : [],
  );

  const views = new Map<string, { group: Omit<Group, "leader" | "members">; views: View[] }>();
  const add = (key: string, group: Omit<Group, "leader" | "members">, view: View) => {
    const entry = views.get(key) ?? { group, views: [] };
    entry.views.push(view);
    views.set(key, entry);
  };
  for (const report of answered) {
    for (const account of report.jsz?.account_details ?? []) {
      const key = account.id ?? account.name;
      for (const stream of account.stream_detail ?? []) {
        // A stream without Raft information is not replicated here (an R1 stream in a
        // non-clustered setup): it has no leader to move.
        if (!stream.cluster) continue;
        const placement = stream.config?.placement?.cluster;
        const placementTags = stream.config?.placement?.tags ?? [];
        add(
          `${key}\u0000${stream.name}`,
          {
            kind: "stream",
            account: key,
            stream: stream.name,
            ...(placement ? { placementCluster: placement } : {}),
            ...(placementTags.length > 0 ? { placementTags } : {}),
          },
          { reporter: report.server, cluster: stream.cluster },
        );
        for (const consumer of stream.consumer_detail ?? []) {
          if (!consumer.cluster) continue;
          add(
            `${key}\u0000${stream.name}\u0000${consumer.name}`,
            { kind: "consumer", account: key, stream: stream.name, consumer: consumer.name },
            { reporter: report.server, cluster: consumer.cluster },
          );
        }
      }
    }
  }
  const groups = [...views.entries()]
    .sort(([a], [b]) => byName(a, b))
    .map(([, { group, views: seen }]) => ({ ...group, ...membersOf(seen) }));
  const metaLeader = metaLeaderOf(metaViews);
  return {
    cluster,
    roster: [...roster],
    silent,
    ...(metaLeader ? { metaLeader } : {}),
    groups,
    ...(tags ? { tags } : {}),
  };
}

/** `stream S`, `consumer S/C`, with the account when it is not the only one. */
export function describeGroup(group: Pick<Group, "kind" | "stream" | "consumer">): string {
  return group.kind === "stream" ? `stream ${group.stream}` : `consumer ${group.stream}/${group.consumer ?? ""}`;
}
