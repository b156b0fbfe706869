// What an account balancer sees of its own account, through the account's JetStream API only (no
// system user): `$SYS.REQ.USER.INFO` for the account's key, STREAM.LIST and CONSUMER.LIST for
// every group with its leader and members (current, offline, lag), and `nc.info.cluster` for the
// NATS cluster in scope (B10). Streams placed in another NATS cluster are left out.
import type { ApiPaged, ConsumerInfo, StreamInfo } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { jsRequest, NatsApiError, systemRequest } from "../../../shared/nats/index.ts";
import type { JszCluster, JszPeer } from "../leaders/jsz.ts";
import type { Group, Member } from "../leaders/snapshot.ts";
import type { Reason } from "../../../shared/api/index.ts";

export interface AccountReading {
  account: string;
  cluster: string;
  /** Every server seen holding a group of the account in `cluster`, and the one the connection reaches. */
  roster: string[];
  /** Streams then their consumers, sorted by stream then consumer. */
  groups: Group[];
}

export type AccountRead = ({ ok: true } & AccountReading) | { ok: false; reason: Reason; message: string };

/** Every item of a paged `$JS.API` list. */
async function listAll<T>(nc: NatsConnection, subject: string, key: string): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await jsRequest<Partial<ApiPaged> & Record<string, unknown>>(nc, subject, { offset: items.length });
    const got = (page[key] as T[] | null | undefined) ?? [];
    items.push(...got);
    if (got.length === 0 || items.length >= (page.total ?? 0)) return items;
  }
}

const memberOf = (peer: JszPeer): Member => ({
  name: peer.name,
  current: peer.current === true && peer.offline !== true,
  offline: peer.offline === true,
  lag: peer.lag ?? 0,
});

/** The leader (current by definition) and its replicas as it reports them. */
function raftOf(cluster: JszCluster | undefined): Pick<Group, "leader" | "members"> {
  const leader = cluster?.leader;
  const replicas = (cluster?.replicas ?? []).map(memberOf);
  if (!leader) return { members: replicas };
  return { leader, members: [{ name: leader, current: true, offline: false, lag: 0 }, ...replicas] };
}

export async function readAccount(nc: NatsConnection): Promise<AccountRead> {
  const cluster = nc.info?.cluster;
  if (!cluster)
    return {
      ok: false,
      reason: "NotClustered",
      message: `the server the connection reaches (${nc.info?.server_name ?? "?"}) is in no NATS cluster`,
    };
  try {
    const info = await systemRequest<{ data?: { account?: string } }>(nc, "$SYS.REQ.USER.INFO");
    const account = info.data?.account;
    if (!account) return { ok: false, reason: "PassFailed", message: "$SYS.REQ.USER.INFO named no account" };
    const streams = (await listAll<StreamInfo>(nc, "STREAM.LIST", "streams")).filter(
      (s) => s.config?.name && s.cluster?.name === cluster,
    );
    const groups: Group[] = [];
    for (const s of streams.sort((a, b) => ((a.config?.name ?? "") < (b.config?.name ?? "") ? -1 : 1))) {
      const stream = s.config?.name ?? "";
      const placement = s.config?.placement;
      groups.push({
        kind: "stream",
        account,
        stream,
        ...raftOf(s.cluster),
        ...(placement?.cluster ? { placementCluster: placement.cluster } : {}),
        ...(placement?.tags?.length ? { placementTags: placement.tags } : {}),
      });
      const consumers = await listAll<ConsumerInfo>(nc, `CONSUMER.LIST.${stream}`, "consumers");
      for (const c of consumers
        .filter((c) => c.name && c.cluster)
        .sort((a, b) => ((a.name ?? "") < (b.name ?? "") ? -1 : 1)))
        groups.push({ kind: "consumer", account, stream, consumer: c.name ?? "", ...raftOf(c.cluster) });
    }
    const seen = groups.flatMap((g) => g.members.map((m) => m.name));
    const roster = [...new Set([...seen, ...(nc.info?.server_name ? [nc.info.server_name] : [])])].sort();
    return { ok: true, account, cluster, roster, groups };
  } catch (error) {
    const why = error instanceof NatsApiError ? `the JetStream API refused: ${error.message}` : String(error);
    return { ok: false, reason: "PassFailed", message: `the account's streams could not be read: ${why}` };
  }
}
