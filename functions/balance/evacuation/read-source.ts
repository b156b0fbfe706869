// Reading an evacuation's source NATS cluster over the system account: STATSZ for its servers and
// tags, its servers' JSZ pages for the streams they hold, and the meta leader's own JSZ for which
// servers of the whole NATS system it counts offline (the leader may sit in another cluster).
// Reads only.
import type { NatsConnection } from "@nats-io/transport-node";
import { gatherReplies, JETSTREAM_CONTROLLER_INBOX } from "../../../shared/nats/index.ts";
import type { JszReply, StatszReply } from "../leaders/jsz.ts";
import { readJsz, readServers } from "../leaders/read-cluster.ts";
import { metaOf, type MetaView, sourceOf, type SourceView } from "./source.ts";

export type SourceReading =
  { ok: true; view: SourceView } | { ok: false; reason: "ServersDown" | "PassFailed"; message: string };

/** The meta leader's view, asked of every server; gathering stops once the leader has answered. */
async function readMeta(nc: NatsConnection): Promise<MetaView> {
  const replies = await gatherReplies<JszReply>(
    nc,
    "$SYS.REQ.SERVER.PING.JSZ",
    {},
    {
      inboxPrefix: JETSTREAM_CONTROLLER_INBOX,
      complete: (got) => got.some((r) => r.server?.name && r.data?.meta_cluster?.leader === r.server.name),
    },
  );
  return metaOf(
    replies.flatMap((r) => (r.server?.name ? [{ server: r.server.name, meta: r.data?.meta_cluster }] : [])),
  );
}

/** The servers of the whole NATS system carrying every one of `tags` (servers match them themselves). */
async function readTargets(nc: NatsConnection, tags: readonly string[]): Promise<string[]> {
  const replies = await gatherReplies<StatszReply>(
    nc,
    "$SYS.REQ.SERVER.PING.STATSZ",
    { tags },
    { inboxPrefix: JETSTREAM_CONTROLLER_INBOX, complete: (got) => got.length > 0 },
  );
  return replies.flatMap((r) => r.server?.name ?? []);
}

/** Reads NATS cluster `cluster` as an evacuation's source, and where its streams may go. */
export async function readSource(nc: NatsConnection, cluster: string, tags: readonly string[]): Promise<SourceReading> {
  try {
    const servers = await readServers(nc, cluster);
    if (servers.size === 0)
      return {
        ok: false,
        reason: "ServersDown",
        message: `no server of NATS cluster ${cluster} answered $SYS.REQ.SERVER.PING.STATSZ: it is down or not in this NATS system, or the connection's user is not a system account user`,
      };
    const [reports, meta, targets] = await Promise.all([
      readJsz(nc, cluster, [...servers.keys()]),
      readMeta(nc),
      readTargets(nc, tags),
    ]);
    return { ok: true, view: sourceOf(cluster, servers, reports, meta, targets) };
  } catch (error) {
    return { ok: false, reason: "PassFailed", message: error instanceof Error ? error.message : String(error) };
  }
}
