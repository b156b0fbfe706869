// The system connection: a NatsConnection (named by NATS_OPERATOR_SYSTEM_CONNECTION as
// <namespace>/<name>) whose credentials are a system-account user with the auth-controller preset.
// Through it sign-account reads the roster (STATSZ), asks each server which JWT it holds for an
// account (CLAIMS.LOOKUP), pushes account JWTs (CLAIMS.UPDATE) and deletes them (CLAIMS.DELETE),
// and finds a deleted user's connections (CONNZ) and closes them (KICK). Reads here; pushes,
// deletes and kicks are sent by act.
import type { NatsConnection } from "@nats-io/transport-node";
import { DEFAULT_CREDENTIALS_KEY, KINDS } from "../../../shared/api/index.ts";
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import {
  connectWith,
  connectWithInbox,
  createConnectionPool,
  gatherRawReplies,
  gatherReplies,
  lateServers,
  type NatsConnectionObject,
  type StatszAnswer,
  systemRequest,
} from "../../../shared/nats/index.ts";
import { readJWT } from "../jwt/compare.ts";
import { parseCreds } from "../user/creds.ts";
import type { DeletionsReading } from "../operator/types.ts";
import type { ConnectionsReading } from "../user/types.ts";
import type { KickOutcome } from "../user/types.ts";
import type { Kick } from "../decision.ts";
import type { DistributionReading } from "./types.ts";
import type { PushOutcome } from "./types.ts";

export const SYSTEM_CONNECTION_ENV = "NATS_OPERATOR_SYSTEM_CONNECTION";

/** The auth-controller preset hears replies only in this inbox (presets.ts). */
export const AUTH_CONTROLLER_INBOX = "_INBOX.auth-controller";

const pool = createConnectionPool(connectWithInbox(AUTH_CONTROLLER_INBOX), "nats-operator/sign-account");

/** Closes the pooled system connection (on shutdown). */
export const closeSystemConnections = (): Promise<void> => pool.closeAll();

/** The configured NatsConnection, or undefined when none is (read on each delivery, so tests can set it). */
export function systemConnectionRef(
  env: NodeJS.ProcessEnv = process.env,
): { namespace: string; name: string } | undefined {
  const value = env[SYSTEM_CONNECTION_ENV]?.trim();
  if (!value) return undefined;
  const [namespace, name, ...rest] = value.split("/");
  return namespace && name && rest.length === 0 ? { namespace, name } : undefined;
}

/** Whether a system connection is configured at all (a malformed one counts: it reads Unreachable, not off). */
export const systemConnectionConfigured = (env: NodeJS.ProcessEnv = process.env): boolean =>
  Boolean(env[SYSTEM_CONNECTION_ENV]?.trim());

export type SystemLink =
  { kind: "off" } | { kind: "unreachable"; message: string } | { kind: "up"; nc: NatsConnection; rosters: RosterPolls };

/**
 * The STATSZ polls of one delivery: the objects it reconciles share one gather wait. Never shared
 * across deliveries: a roster read while a cluster's routes were still forming would count a new
 * account against too few servers (and call it distributed) for as long as it was reused.
 */
export interface RosterPolls {
  last?: { nc: NatsConnection; at: number; ids: string[] };
}

export const newRosterPolls = (): RosterPolls => ({});

export async function openSystemConnection(kube: Kube, rosters: RosterPolls = newRosterPolls()): Promise<SystemLink> {
  const raw = process.env[SYSTEM_CONNECTION_ENV];
  const ref = systemConnectionRef();
  if (!ref)
    return raw?.trim()
      ? { kind: "unreachable", message: `${SYSTEM_CONNECTION_ENV}=${raw} is not <namespace>/<name>` }
      : { kind: "off" };
  const connection = await kube.get<NatsConnectionObject>({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: "NatsConnection",
    namespace: ref.namespace,
    name: ref.name,
  });
  if (!connection)
    return { kind: "unreachable", message: `system connection NatsConnection ${ref.namespace}/${ref.name} not found` };
  const connected = await connectWith(kube, pool, connection);
  return connected.ok ? { kind: "up", nc: connected.nc, rosters } : { kind: "unreachable", message: connected.message };
}

/**
 * The user key the system connection dials with (the subject of the JWT in its creds Secret), or
 * undefined when there is none to read: a deleted user of that key cannot be confirmed revoked
 * through the connection the revocation closes.
 */
export async function systemConnectionUser(kube: Kube): Promise<string | undefined> {
  const ref = systemConnectionRef();
  if (!ref) return undefined;
  const connection = await kube.get<NatsConnectionObject>({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: "NatsConnection",
    namespace: ref.namespace,
    name: ref.name,
  });
  const where = connection?.spec.credentials?.secretKeyRef;
  if (!where) return undefined;
  const secret = await kube.get<KubeObject & { data?: Record<string, string> }>({
    apiVersion: "v1",
    kind: "Secret",
    namespace: ref.namespace,
    name: where.name,
  });
  const data = secret?.data?.[where.key ?? DEFAULT_CREDENTIALS_KEY];
  const parsed = data ? parseCreds(Buffer.from(data, "base64").toString("utf8")) : undefined;
  return readJWT(parsed?.jwt)?.sub;
}

/** Within one delivery, a roster read this recently is used again (a long fan-out polls afresh). */
const ROSTER_REUSE_MS = 5_000;

type UpLink = Extract<SystemLink, { kind: "up" }>;

/** Server IDs answering `$SYS.REQ.SERVER.PING.STATSZ` within the gather wait. */
export async function readRoster(link: UpLink): Promise<string[]> {
  return (await pollRoster(link)).ids;
}

/** A STATSZ poll: the server IDs that answered, and when it was made (shared within the delivery). */
async function pollRoster({ nc, rosters }: UpLink): Promise<{ ids: string[]; at: number }> {
  const last = rosters.last;
  if (last && last.nc === nc && Date.now() - last.at < ROSTER_REUSE_MS) return last;
  // Unfiltered, every server of every NATS cluster answers, so the wait is never cut short.
  const ask = () =>
    gatherReplies<StatszAnswer>(
      nc,
      "$SYS.REQ.SERVER.PING.STATSZ",
      {},
      {
        inboxPrefix: AUTH_CONTROLLER_INBOX,
        complete: () => false,
      },
    );
  const first = await ask();
  // A server a route names that missed the wait is up and late: asked once more, both answers count.
  const replies = lateServers(first).length > 0 ? [...first, ...(await ask())] : first;
  const ids = [...new Set(replies.flatMap((r) => (r.server?.id ? [r.server.id] : [])))].sort();
  rosters.last = { nc, at: Date.now(), ids };
  return rosters.last;
}

/** Each answering server's JWT for the account ("" when it holds none). */
async function lookup(nc: NatsConnection, accountKey: string, rosterSize: number): Promise<string[]> {
  const replies = await gatherRawReplies(nc, `$SYS.REQ.ACCOUNT.${accountKey}.CLAIMS.LOOKUP`, "", {
    inboxPrefix: AUTH_CONTROLLER_INBOX,
    complete: (r) => r.length >= rosterSize,
  });
  return replies.filter((r) => !r.noResponders).map((r) => r.data.trim());
}

/** What the servers hold of an account; `accountKey` is undefined before the account has one. */
export async function readDistribution(
  link: SystemLink,
  accountKey: string | undefined,
  lastPush: PushOutcome | undefined,
  lastDelete?: PushOutcome,
): Promise<DistributionReading> {
  if (link.kind !== "up") return link;
  try {
    const poll = await pollRoster(link);
    const roster = poll.ids;
    const holdings = accountKey && roster.length > 0 ? await lookup(link.nc, accountKey, roster.length) : [];
    return {
      kind: "read",
      roster,
      polledAt: new Date(poll.at).toISOString(),
      holdings,
      ...(lastPush ? { lastPush } : {}),
      ...(lastDelete ? { lastDelete } : {}),
    };
  } catch (error) {
    return { kind: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
}

/** Which of `keys` (deleted accounts) some server still holds a JWT for. */
export async function readDeletions(
  link: SystemLink,
  keys: string[],
  lastDelete: PushOutcome | undefined,
): Promise<DeletionsReading> {
  if (link.kind !== "up") return link;
  try {
    const roster = await readRoster(link);
    const held: string[] = [];
    for (const key of roster.length > 0 ? keys : []) {
      const holdings = await lookup(link.nc, key, roster.length);
      if (holdings.some((jwt) => jwt !== "")) held.push(key);
    }
    return { kind: "read", roster, held, ...(lastDelete ? { lastDelete } : {}) };
  } catch (error) {
    return { kind: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
}

interface ConnzReply {
  server?: { id?: string };
  data?: { connections?: { cid?: number }[] };
  error?: { code?: number; description?: string };
}

/**
 * A user's open connections on every server: `$SYS.REQ.SERVER.PING.CONNZ` filtered by account and
 * user key (the server matches the key a JWT user connected with), with the servers that answered.
 */
export async function readConnections(
  link: SystemLink,
  accountKey: string,
  userKey: string,
  lastKick: KickOutcome | undefined,
): Promise<ConnectionsReading> {
  if (link.kind !== "up") return link;
  try {
    const roster = await readRoster(link);
    const replies = await gatherReplies<ConnzReply>(
      link.nc,
      "$SYS.REQ.SERVER.PING.CONNZ",
      { acc: accountKey, user: userKey },
      { inboxPrefix: AUTH_CONTROLLER_INBOX, complete: (r) => r.length >= roster.length },
    );
    const answered: string[] = [];
    const connections: Kick[] = [];
    for (const reply of replies) {
      const server = reply.server?.id;
      if (!server || reply.error) continue;
      answered.push(server);
      for (const c of reply.data?.connections ?? [])
        if (typeof c.cid === "number") connections.push({ server, cid: c.cid });
    }
    return { kind: "read", roster, answered: answered.sort(), connections, ...(lastKick ? { lastKick } : {}) };
  } catch (error) {
    return { kind: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Closes each connection with `$SYS.REQ.SERVER.<id>.KICK`. A connection already gone (the server
 * closed it when it took the revocation) is not a failure.
 */
export async function kickConnections(nc: NatsConnection, kicks: readonly Kick[]): Promise<KickOutcome> {
  let kicked = 0;
  const failed: string[] = [];
  for (const kick of kicks) {
    try {
      await systemRequest(nc, `$SYS.REQ.SERVER.${kick.server}.KICK`, { cid: kick.cid });
      kicked++;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!/no such client/i.test(message)) failed.push(`${kick.server}: ${message}`);
    }
  }
  return { kicked, failed };
}

interface UpdateReply {
  server?: { id?: string; name?: string };
  data?: { code?: number; message?: string };
  error?: { code?: number; description?: string };
}

/** Publishes the JWT to `$SYS.REQ.CLAIMS.UPDATE` and counts what each server answered. */
export const pushJwt = (nc: NatsConnection, jwt: string, rosterSize: number, now: Date): Promise<PushOutcome> =>
  sendClaims(nc, "$SYS.REQ.CLAIMS.UPDATE", jwt, rosterSize, now);

/** Publishes a delete request (a generic JWT self-signed by an operator key) to `$SYS.REQ.CLAIMS.DELETE`. */
export const deleteClaims = (
  nc: NatsConnection,
  request: string,
  rosterSize: number,
  now: Date,
): Promise<PushOutcome> => sendClaims(nc, "$SYS.REQ.CLAIMS.DELETE", request, rosterSize, now);

async function sendClaims(
  nc: NatsConnection,
  subject: string,
  jwt: string,
  rosterSize: number,
  now: Date,
): Promise<PushOutcome> {
  // Every roster server answers (resolver full); a server that joined since answers too, but is
  // only waited for by the gather wait.
  const replies = await gatherRawReplies(nc, subject, jwt, {
    inboxPrefix: AUTH_CONTROLLER_INBOX,
    complete: (r) => r.length >= Math.max(rosterSize, 1),
  });
  let acknowledged = 0;
  const refused: string[] = [];
  for (const reply of replies) {
    if (reply.noResponders) {
      refused.push(`no server answers ${subject} (is the resolver full?)`);
      continue;
    }
    let answer: UpdateReply;
    try {
      answer = JSON.parse(reply.data) as UpdateReply;
    } catch {
      continue;
    }
    const server = answer.server?.name ?? answer.server?.id ?? "a server";
    if (answer.error) refused.push(`${server}: ${answer.error.description ?? `error ${String(answer.error.code)}`}`);
    else acknowledged++;
  }
  return { at: now.toISOString(), acknowledged, refused };
}
