// The JetStream meta leader when it sits in another NATS cluster of the supercluster (C23, C37,
// H12). This cluster's servers are then all followers, and a follower's /jsz says little of the
// meta group: it names the leader, not who the leader counts as a peer. A replaced server that
// rejoins under its name is counted again only once the leader lists it (after nats-server's
// five-minute removal tombstone), so the gate asks the leader, as the system user, for its view:
// one `$SYS.REQ.SERVER.PING.JSZ` filtered to that server's name. Without a system user, or when
// the leader does not answer, the meta group is judged from the followers' view, as before.
import type { NatsConnection } from "@nats-io/transport-node";
import { gatherReplies } from "../../../shared/nats/index.ts";
import type { Jsz, ServerReport } from "../rollout/snapshot.ts";

/** The inbox the cluster-controller's permissions let it read answers on. */
const INBOX_PREFIX = "_INBOX.cluster-controller";

/**
 * The meta leader this cluster's servers name, when none of them leads and it is none of them
 * (pure): the one server to ask. Undefined when a server of ours leads, none names a leader, or
 * they name different ones (the group is changing leader: the followers' view says so).
 */
export function remoteMetaLeader(reports: readonly ServerReport[], servers: ReadonlySet<string>): string | undefined {
  const named = new Set<string>();
  for (const report of reports) {
    const leader = report.jsz?.meta_cluster?.leader;
    if (leader === undefined || leader === "") continue;
    if (leader === report.server) return undefined;
    named.add(leader);
  }
  const [leader, ...others] = [...named];
  return leader !== undefined && others.length === 0 && !servers.has(leader) ? leader : undefined;
}

interface JszReply {
  server?: { name?: string };
  data?: Jsz;
}

/** The leader's own JSZ as its report, or undefined when it does not answer as the leader. */
export async function askMetaLeader(nc: NatsConnection, leader: string): Promise<ServerReport | undefined> {
  const replies = await gatherReplies<JszReply>(
    nc,
    "$SYS.REQ.SERVER.PING.JSZ",
    { server_name: leader, exact_match: true },
    { inboxPrefix: INBOX_PREFIX, complete: (r) => r.some((reply) => reply.server?.name === leader) },
  );
  const jsz = replies.find((reply) => reply.server?.name === leader)?.data;
  return jsz?.meta_cluster?.leader === leader ? { server: leader, jsz } : undefined;
}
