// What an evacuation sees of its source NATS cluster: its servers and their tags, who missed a JSZ
// page, the meta leader and whom it counts offline, and every stream the source servers hold.
// Plain data, built from the JSZ pages by `sourceOf` (pure, so fixtures can drive it).
import { JETSTREAM_METADATA } from "../../../shared/api/index.ts";
import type { JszCluster, ServerReport } from "../leaders/jsz.ts";

export interface SourceStream {
  /** The account's key, as `$JS.API.ACCOUNT.STREAM.MOVE.<account>.<stream>` names it. */
  account: string;
  name: string;
  /** Every server holding a copy or leading it, as the source servers see it. */
  peers: string[];
  /** The stream config's `placement.cluster`, if any. */
  placementCluster?: string;
  /** The UID of the resource that owns it (the ownership marker), if any. */
  owner?: string;
}

export interface MetaView {
  leader?: string;
  /** Servers of the whole NATS system the meta leader counts offline. */
  offline: string[];
}

export interface SourceView {
  cluster: string;
  servers: { name: string; tags: string[] }[];
  /** Source servers that did not answer every JSZ page. */
  silent: string[];
  meta: MetaView;
  /** Sorted by account, then name. */
  streams: SourceStream[];
  /** Servers of the NATS system carrying every target tag, as they answered STATSZ. */
  targets: string[];
}

/** The meta group as its leader sees it: only the leader's view of the replicas is reliable. */
export function metaOf(views: readonly { server: string; meta?: JszCluster }[]): MetaView {
  const own = views.find((v) => v.meta?.leader === v.server);
  if (!own?.meta) return { offline: [] };
  return {
    leader: own.server,
    offline: (own.meta.replicas ?? []).filter((r) => r.offline === true).map((r) => r.name),
  };
}

const byKey = (a: SourceStream, b: SourceStream) =>
  a.account === b.account ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.account < b.account ? -1 : 1;

/** Merges what the source servers reported into one view. */
export function sourceOf(
  cluster: string,
  servers: ReadonlyMap<string, readonly string[]>,
  reports: readonly ServerReport[],
  meta: MetaView,
  targets: readonly string[],
): SourceView {
  const silent = [...servers.keys()].filter((s) => !reports.some((r) => r.server === s && r.jsz));
  const streams = new Map<string, SourceStream>();
  for (const report of reports) {
    for (const account of report.jsz?.account_details ?? []) {
      const key = account.id ?? account.name;
      for (const stream of account.stream_detail ?? []) {
        const id = `${key}\u0000${stream.name}`;
        const entry = streams.get(id) ?? { account: key, name: stream.name, peers: [] };
        const seen = [
          report.server,
          ...(stream.cluster?.leader ? [stream.cluster.leader] : []),
          ...(stream.cluster?.replicas ?? []).map((r) => r.name),
        ];
        entry.peers = [...new Set([...entry.peers, ...seen])].sort();
        const placement = stream.config?.placement?.cluster;
        if (placement) entry.placementCluster = placement;
        const owner = stream.config?.metadata?.[JETSTREAM_METADATA.owner];
        if (owner) entry.owner = owner;
        streams.set(id, entry);
      }
    }
  }
  return {
    cluster,
    servers: [...servers.entries()].map(([name, tags]) => ({ name, tags: [...tags] })),
    silent,
    meta,
    streams: [...streams.values()].sort(byKey),
    targets: [...targets].sort(),
  };
}
