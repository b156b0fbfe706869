// How a NatsCluster's servers reach the rest of the system (C50, C57), judged from what they
// answer to GATEWAYZ and LEAFZ (pure): `status.gateways[]` with `GatewaysConnected`, and
// `status.leafRemotes[]` with `LeafnodesConnected`.
import type { ConditionUpdate } from "../../shared/kube/index.ts";
import type { Cluster } from "./cluster.ts";
import type { RefusedLeafRemote } from "./leaf-remotes.ts";
import type { ReadyLeafRemote } from "./plan/leafnodes.ts";
import { decodeClaims } from "./trust/jwt-claims.ts";

/** The part of a GATEWAYZ answer (`/gatewayz`, or `data` of `$SYS.REQ.SERVER.PING.GATEWAYZ`) read here. */
export interface Gatewayz {
  outbound_gateways?: Record<string, { connection?: object }>;
  inbound_gateways?: Record<string, { connection?: object }[]>;
}

/** One leaf connection of a LEAFZ answer: on the side that dialled it, `is_spoke` is true. */
export interface LeafConnection {
  name?: string;
  account?: string;
  is_spoke?: boolean;
}

export interface Leafz {
  leafs?: LeafConnection[];
}

/** What one server answered; a server that did not answer is not listed. */
export interface ServerConnectivity {
  server: string;
  gatewayz?: Gatewayz;
  leafz?: Leafz;
}

export interface GatewayMemberStatus {
  name: string;
  connected: boolean;
  inbound: number;
  outbound: number;
}

export interface LeafRemoteStatus {
  connectionNamespace: string;
  connectionName: string;
  connected: number;
  account?: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Per member of the supercluster (every remote but this cluster, and any other name a server
 * has a connection with, as Gossip discovers them): how many answering servers dial it, how many
 * of its connections come in, and whether it is connected: every planned server dials it and at
 * least one of its servers dials in. Counted against the planned servers, not the answering ones,
 * so a cluster still starting is not called connected. Messages from a member arrive over its
 * own outbound connections, so one none of whose servers dials in is not connected either (and
 * the poll that looks again goes on until it does, so `inbound` is not left at a stale 0).
 */
export function judgeGateways(
  cluster: Cluster,
  answers: readonly ServerConnectivity[],
): { members: GatewayMemberStatus[]; condition: ConditionUpdate } {
  const own = cluster.metadata.name;
  const answering = answers.filter((a) => a.gatewayz !== undefined);
  const names = new Set((cluster.spec.gateway?.remotes ?? []).map((r) => r.name));
  for (const answer of answering) {
    for (const name of Object.keys(answer.gatewayz?.outbound_gateways ?? {})) names.add(name);
    for (const name of Object.keys(answer.gatewayz?.inbound_gateways ?? {})) names.add(name);
  }
  names.delete(own);
  const everyServerDials = (outbound: number) => outbound > 0 && outbound >= cluster.spec.replicas;
  const members = [...names].sort().map((name): GatewayMemberStatus => {
    const outbound = answering.filter((a) => a.gatewayz?.outbound_gateways?.[name]?.connection !== undefined).length;
    const inbound = answering.reduce((sum, a) => sum + (a.gatewayz?.inbound_gateways?.[name]?.length ?? 0), 0);
    return { name, connected: everyServerDials(outbound) && inbound > 0, inbound, outbound };
  });
  const type = "GatewaysConnected";
  if (answering.length === 0)
    return {
      members,
      condition: { type, status: "Unknown", reason: "ObservationFailed", message: "no server answered GATEWAYZ" },
    };
  const connected = members.filter((m) => m.connected);
  // Said as "1 of 1 remote members connected": the count is of the whole supercluster.
  const message = `${connected.length} of ${members.length} remote members connected`;
  if (connected.length === members.length)
    return { members, condition: { type, status: "True", reason: "AllMembersReachable", message } };
  const missing = members
    .filter((m) => !m.connected)
    .map((m) =>
      everyServerDials(m.outbound)
        ? `${m.name} (none of its servers dials in)`
        : `${m.name} (${m.outbound} of ${cluster.spec.replicas} servers)`,
    );
  return {
    members,
    condition: {
      type,
      status: "False",
      reason: "MembersUnreachable",
      message: `${message}; not connected: ${missing.join(", ")}`,
    },
  };
}

/** The hub account a remote's creds authenticate into: the user JWT's issuer account. */
function hubAccount(creds: string | undefined): string | undefined {
  // A JWT is base64url: its parts may hold "-" and "_".
  const jwt = creds?.match(/-----BEGIN NATS USER JWT-----\s*([A-Za-z0-9._-]+)\s*------END NATS USER JWT------/)?.[1];
  if (!jwt) return undefined;
  const claims = decodeClaims(jwt).claims as { iss?: string; nats?: { issuer_account?: string } } | undefined;
  return claims?.nats?.issuer_account ?? claims?.iss;
}

const GLOBAL_ACCOUNT = "$G";

/**
 * Per remote: on how many answering servers it is connected; all is every planned server
 * (`replicas`). LEAFZ does not name remotes (N13),
 * only the local account of each connection a server dialled, so remotes binding the same local
 * account are told apart by count: a server counts for each of them once it holds as many such
 * connections as there are remotes binding that account.
 */
export function judgeLeafRemotes(
  replicas: number,
  ready: readonly ReadyLeafRemote[],
  refused: readonly RefusedLeafRemote[],
  answers: readonly ServerConnectivity[],
): { remotes: LeafRemoteStatus[]; condition: ConditionUpdate } {
  const answering = answers.filter((a) => a.leafz !== undefined);
  const localAccount = (r: ReadyLeafRemote) => r.account ?? GLOBAL_ACCOUNT;
  const sharing = (account: string) => ready.filter((r) => localAccount(r) === account).length;
  const remotes = ready.map((remote): LeafRemoteStatus => {
    const account = localAccount(remote);
    const connected = answering.filter(
      (a) =>
        (a.leafz?.leafs ?? []).filter((l) => l.is_spoke === true && l.account === account).length >= sharing(account),
    ).length;
    const hub = hubAccount(remote.creds);
    return {
      connectionNamespace: remote.connectionNamespace,
      connectionName: remote.connectionName,
      connected,
      ...(hub ? { account: hub } : {}),
    };
  });
  const type = "LeafnodesConnected";
  const first = refused[0];
  if (first) {
    const names = refused.map((r) => `${r.connectionNamespace}/${r.connectionName}: ${r.message}`).join("; ");
    return { remotes, condition: { type, status: "False", reason: first.reason, message: `left out: ${names}` } };
  }
  const servers = replicas;
  const message = `${plural(servers, "server", "servers")} connected to ${plural(remotes.length, "remote", "remotes")}`;
  const down = remotes.filter((r) => servers === 0 || r.connected < servers);
  if (down.length === 0)
    return {
      remotes,
      condition: { type, status: "True", reason: "AllRemotesConnected", message: `${servers} of ${message}` },
    };
  const names = down.map((r) => `${r.connectionNamespace}/${r.connectionName} (${r.connected} of ${servers} servers)`);
  return {
    remotes,
    condition: { type, status: "False", reason: "RemotesDisconnected", message: `not connected: ${names.join(", ")}` },
  };
}
