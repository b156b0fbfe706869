// Reading the NATS cluster the connection reaches over the system account: the roster from STATSZ,
// every server's JSZ pages, the connection's own account, and which accounts' stepdown services
// the system account reaches. Reads only: the probe names a stream that cannot exist.
import type { NatsConnection } from "@nats-io/transport-node";
import {
  forEachJszPage,
  gatherReplies,
  JETSTREAM_CONTROLLER_INBOX,
  lateServers,
  NatsApiError,
  systemRequest,
} from "../../../shared/nats/index.ts";
import type { JszAccount, JszData, JszReply, ServerReport, StatszReply } from "./jsz.ts";
import { mergeSnapshot, type Snapshot } from "./snapshot.ts";
import { probeTimeoutMs, stepdownSubject } from "./stepdown.ts";

export type ClusterReading =
  | { ok: true; snapshot: Snapshot; ownAccount?: string }
  | { ok: false; reason: "NotClustered" | "NotSystemUser" | "PassFailed"; message: string };

/**
 * Every server of the cluster with its tags; the roster is complete once all the routes name have
 * answered. A server only a route names (it did not answer) has no tags.
 */
export async function readServers(nc: NatsConnection, cluster: string): Promise<Map<string, string[]>> {
  const replies = await gatherReplies<StatszReply>(
    nc,
    "$SYS.REQ.SERVER.PING.STATSZ",
    { cluster, exact_match: true },
    {
      inboxPrefix: JETSTREAM_CONTROLLER_INBOX,
      complete: (got) => got.some((r) => r.server?.name) && lateServers(got).length === 0,
    },
  );
  const servers = new Map<string, string[]>();
  for (const r of replies) {
    if (r.server?.name) servers.set(r.server.name, r.server.tags ?? []);
    for (const route of r.statsz?.routes ?? []) if (route.name && !servers.has(route.name)) servers.set(route.name, []);
  }
  return new Map([...servers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** All JSZ pages; a server that misses one page is left without a report (silent). */
export async function readJsz(nc: NatsConnection, cluster: string, roster: readonly string[]): Promise<ServerReport[]> {
  const pages = new Map<string, JszAccount[]>(roster.map((s) => [s, []]));
  const metas = new Map<string, JszData["meta_cluster"]>();
  const missed = new Set<string>();
  await forEachJszPage(async ({ offset, limit }) => {
    const replies = await gatherReplies<JszReply>(
      nc,
      "$SYS.REQ.SERVER.PING.JSZ",
      { cluster, exact_match: true, accounts: true, streams: true, consumer: true, config: true, offset, limit },
      {
        inboxPrefix: JETSTREAM_CONTROLLER_INBOX,
        complete: (got) => roster.every((s) => got.some((r) => r.server?.name === s)),
      },
    );
    const failed = replies.find((r) => r.error);
    if (failed)
      throw new Error(
        `${failed.server?.name ?? "a server"} answered JSZ with ${failed.error?.description ?? "an error"}`,
      );
    for (const server of roster) {
      const reply = replies.find((r) => r.server?.name === server);
      if (!reply?.data) {
        missed.add(server);
        continue;
      }
      pages.get(server)?.push(...(reply.data.account_details ?? []));
      if (offset === 0 && reply.data.meta_cluster) metas.set(server, reply.data.meta_cluster);
    }
    return Math.max(0, ...replies.map((r) => r.data?.total ?? 0));
  });
  return roster.map((server) => {
    if (missed.has(server)) return { server };
    const meta = metas.get(server);
    return { server, jsz: { ...(meta ? { meta_cluster: meta } : {}), account_details: pages.get(server) ?? [] } };
  });
}

/** The connection's own account; undefined when the server does not say. */
async function ownAccountOf(nc: NatsConnection): Promise<string | undefined> {
  try {
    const info = await systemRequest<{ data?: { account?: string } }>(nc, "$SYS.REQ.USER.INFO");
    return info.data?.account;
  } catch {
    return undefined;
  }
}

/** Reads the NATS cluster the connection reaches. */
export async function readCluster(nc: NatsConnection): Promise<ClusterReading> {
  const cluster = nc.info?.cluster;
  if (!cluster)
    return {
      ok: false,
      reason: "NotClustered",
      message: `the server the connection reaches (${nc.info?.server_name ?? "?"}) is in no NATS cluster`,
    };
  try {
    const servers = await readServers(nc, cluster);
    const roster = [...servers.keys()];
    if (roster.length === 0)
      return {
        ok: false,
        reason: "NotSystemUser",
        message: `no server answered $SYS.REQ.SERVER.PING.STATSZ: the connection's user is not a system account user, or may not publish there`,
      };
    const [reports, ownAccount] = await Promise.all([readJsz(nc, cluster, roster), ownAccountOf(nc)]);
    return {
      ok: true,
      snapshot: mergeSnapshot(cluster, roster, reports, servers),
      ...(ownAccount ? { ownAccount } : {}),
    };
  } catch (error) {
    return { ok: false, reason: "PassFailed", message: error instanceof Error ? error.message : String(error) };
  }
}

/** An answer, even a refusal, means the stepdown service is imported; no responders means it is not. */
async function answers(nc: NatsConnection, subject: string): Promise<boolean> {
  try {
    await systemRequest(nc, subject, undefined, probeTimeoutMs);
    return true;
  } catch (error) {
    return error instanceof NatsApiError;
  }
}

/** Which accounts the system account reaches the stepdown services of, probed with stream `/` (which cannot exist). */
export async function probeReach(
  nc: NatsConnection,
  accounts: readonly string[],
  ownAccount: string | undefined,
): Promise<Map<string, boolean>> {
  const reached = await Promise.all(
    accounts.map(async (account) => {
      if (account === ownAccount) return [account, true] as const;
      const [stream, consumer] = await Promise.all([
        answers(nc, stepdownSubject({ account, stream: "/" }, ownAccount)),
        answers(nc, stepdownSubject({ account, stream: "/", consumer: "/" }, ownAccount)),
      ]);
      return [account, stream && consumer] as const;
    }),
  );
  return new Map(reached);
}
