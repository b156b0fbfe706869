// Whether an account JWT has reached the servers, and whether to push it (pure): from the roster of
// servers that answered STATSZ, the JWT each one answered a claims lookup with, and the answers to a
// push made earlier in the same delivery. The server offers no aggregate, so "current" is counted
// here: lookups byte-equal to the JWT in status, at most one per roster server.
import type { NatsAccountStatus, Reason } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { keepPolling, type ScheduleDecision, stopPolling } from "../../../shared/runtime/index.ts";
import { noSystemConnection } from "../conditions.ts";
import type { NatsAccount, NatsSystemAccount } from "../objects.ts";
import { nextRoster, rosterStatus } from "./roster.ts";
import type { DistributionReading } from "./types.ts";

export type Distribution = NonNullable<NatsAccountStatus["distribution"]>;

export interface DistributionVerdict {
  /** status.distribution to write; undefined leaves what status holds. */
  distribution?: Distribution;
  condition: ConditionUpdate;
  /** Push the JWT status holds once the status write (the claim) has held. */
  push: boolean;
  /** Nothing left to confirm: no poll is needed. */
  settled: boolean;
}

const distributed = (status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type: "Distributed",
  status,
  reason,
  message,
});

/** A JWT's claim `field` (a number of seconds), read without verifying. */
function timeClaim(jwt: string, field: "iat" | "exp"): number | undefined {
  const payload = jwt.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const value = claims[field];
    return typeof value === "number" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** When a JWT expires (RFC 3339), or undefined for one that never does. */
export function expiresAt(jwt: string): string | undefined {
  const exp = timeClaim(jwt, "exp");
  return exp === undefined ? undefined : new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A JWT's issue time in seconds, read without verifying (only to compare two JWTs' ages). */
export function issuedAt(jwt: string): number | undefined {
  return timeClaim(jwt, "iat");
}

/**
 * `jwt` is the JWT status will hold after this decision; `signing` says it is about to be made
 * (so no server can hold it yet). A refused object passes `mayPush: false`.
 */
export function decideDistribution(
  reading: DistributionReading,
  jwt: string | undefined,
  signing: boolean,
  previous: Distribution | undefined,
  mayPush = true,
): DistributionVerdict {
  if (reading.kind === "off") return { condition: noSystemConnection(), push: false, settled: true };
  if (!jwt && !signing)
    return {
      condition: distributed("False", "NotSigned", "there is no JWT to push yet"),
      push: false,
      settled: true,
    };
  if (reading.kind === "unreachable")
    return { condition: distributed("False", "Unreachable", reading.message), push: false, settled: false };

  // Counted against the roster, which keeps a server through two missed polls: a server that is
  // only slow to answer keeps the JWT from reading current on every server.
  const roster = nextRoster(previous, { answered: reading.roster, at: reading.polledAt });
  const servers = roster.servers.length;
  const current = signing ? 0 : Math.min(reading.holdings.filter((held) => held === jwt).length, servers);
  const acknowledged = reading.lastPush && reading.lastPush.acknowledged > 0 ? reading.lastPush.at : undefined;
  const lastPushTime = acknowledged ?? previous?.lastPushTime;
  const distribution: Distribution = {
    servers,
    current,
    ...(lastPushTime ? { lastPushTime } : {}),
    ...rosterStatus(roster),
  };
  const counted = `${current} of ${servers} servers hold this JWT`;
  if (servers === 0)
    return {
      distribution,
      condition: distributed("False", "Unreachable", "no server answered $SYS.REQ.SERVER.PING.STATSZ"),
      push: false,
      settled: false,
    };
  if (current === servers)
    return { distribution, condition: distributed("True", "AllServersCurrent", counted), push: false, settled: true };

  // A push carries no issue-time guard on the server, so an older JWT pushed over a newer one sticks.
  const ours = jwt && !signing ? issuedAt(jwt) : undefined;
  const newer = ours === undefined ? undefined : reading.holdings.find((held) => (issuedAt(held) ?? 0) > ours);
  if (newer)
    return {
      distribution,
      condition: distributed(
        "False",
        "NewerJWTHeld",
        `${counted}; a server holds a newer JWT, so this one is not pushed`,
      ),
      push: false,
      settled: false,
    };
  const refused = reading.lastPush?.refused ?? [];
  if (refused.length > 0)
    return {
      distribution,
      condition: distributed("False", "PushRefused", `${counted}; refused by ${refused.join("; ")}`),
      push: false,
      settled: false,
    };
  // Pushed once in this delivery already: the poll checks again rather than pushing in a loop.
  return {
    distribution,
    condition: distributed("False", "ServersBehind", counted),
    push: mayPush && !reading.lastPush,
    settled: false,
  };
}

export interface DeletionVerdict {
  /** status.distribution with the roster the deletion is counted against; undefined leaves it. */
  distribution?: Distribution;
  /** The Distributed condition while the delete is unconfirmed; undefined once it is done. */
  condition?: ConditionUpdate;
  /** Send `$SYS.REQ.CLAIMS.DELETE` once the status write (the claim) has held. */
  send: boolean;
  /** Every roster server answered that it holds no JWT for the account: the finalizer may go. */
  confirmed: boolean;
}

/**
 * A deleted account with a system connection (pure): confirmed once every roster server answered
 * its claims lookup with no JWT; otherwise the delete is sent (once per delivery; the poll sends it
 * again while any server still holds the JWT, so a server that rejoins deletes it too).
 */
export function decideDeletion(reading: DistributionReading, previous?: Distribution): DeletionVerdict {
  if (reading.kind === "off") return { send: false, confirmed: true };
  if (reading.kind === "unreachable")
    return {
      condition: distributed("False", "Unreachable", `deleting: ${reading.message}`),
      send: false,
      confirmed: false,
    };
  const roster = nextRoster(previous, { answered: reading.roster, at: reading.polledAt });
  const servers = roster.servers.length;
  const distribution: Distribution = { ...previous, servers, ...rosterStatus(roster) };
  if (!roster.polledAt) delete distribution.polledAt;
  if (servers === 0)
    return {
      distribution,
      condition: distributed("False", "Unreachable", "deleting: no server answered $SYS.REQ.SERVER.PING.STATSZ"),
      send: false,
      confirmed: false,
    };
  const holding = Math.min(reading.holdings.filter((held) => held !== "").length, servers);
  // A server of the roster that did not answer may still hold the JWT: not confirmed.
  const silent = Math.max(servers - reading.holdings.length, 0);
  if (holding === 0 && silent === 0) return { distribution, send: false, confirmed: true };
  const counted =
    `deleting: ${holding} of ${servers} servers still hold this account's JWT` +
    (silent > 0 ? `, ${silent} did not answer` : "");
  const refused = reading.lastDelete?.refused ?? [];
  if (refused.length > 0)
    return {
      distribution,
      condition: distributed("False", "DeleteRefused", `${counted}; refused by ${refused.join("; ")}`),
      send: false,
      confirmed: false,
    };
  return {
    distribution,
    condition: distributed("False", "Deleting", counted),
    send: !reading.lastDelete,
    confirmed: false,
  };
}

export const distributionPollName = (account: string): string => `${account}-account-distribution`;

/** A system account's poll: named apart, as a NatsAccount of the same name may share its namespace. */
export const systemDistributionPollName = (account: string): string => `${account}-systemaccount-distribution`;

/** How often an unconfirmed push is checked again. */
const RECHECK = { every: "10s" } as const;

/** The poll of an account (or system account) whose JWT is not yet confirmed on every server; none at rest. */
export function distributionPoll(account: NatsAccount | NatsSystemAccount, settled: boolean): ScheduleDecision {
  const name =
    account.kind === "NatsSystemAccount"
      ? systemDistributionPollName(account.metadata.name)
      : distributionPollName(account.metadata.name);
  const id = { namespace: account.metadata.namespace, name };
  if (settled) return stopPolling(id);
  return keepPolling(
    {
      ...id,
      target: "sign-account",
      work: { namespace: account.metadata.namespace, kind: account.kind, name: account.metadata.name },
      scope: { kind: "object", owner: account },
    },
    RECHECK,
  );
}
