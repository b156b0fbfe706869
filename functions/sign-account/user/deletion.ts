// A NatsUser being deleted (pure). Its revoke finalizer holds the object, and the creds Secret it
// owns, until the key can no longer be used anywhere: the account JWT revokes the key from the
// deletion time on (the account's reconcile signs that), every server holds that JWT (a server
// closes a revoked key's connections when it takes the JWT), and no server reports a live
// connection of the key (CONNZ filtered by account and user; each one found is kicked). Then the
// finalizer goes, and the creds Secret the user owns goes with the user (garbage collection): so
// sign-account needs no right to delete Secrets, and the creds outlive the drain, never the other
// way round. A user whose account or operator is gone, or whose account has no JWT, has nothing to
// wait for: the finalizer must never hold a user forever.
import { FINALIZERS, type Reason } from "../../../shared/api/index.ts";
import { type ConditionUpdate, hasFinalizer } from "../../../shared/kube/index.ts";
import { keepPolling, type ScheduleDecision, stopPolling } from "../../../shared/runtime/index.ts";
import { settle } from "../conditions.ts";
import type { Kick, SignStep, UserDecision } from "../decision.ts";
import { jwtHash } from "../jwt/hash.ts";
import { namespaceOf, type NatsUser } from "../objects.ts";
import type { UserObserved } from "./types.ts";
import { revokes } from "../account/revocations.ts";

export const revokePollName = (user: string): string => `${user}-user-revoke`;

/** How often a deleted user's drain is checked again while it waits. */
const RECHECK = { every: "5s" } as const;

/** The poll of a deleted user whose drain waits; none once it is done. */
export function revokePoll(user: NatsUser, waiting: boolean): ScheduleDecision {
  const id = { namespace: user.metadata.namespace, name: revokePollName(user.metadata.name) };
  if (!waiting) return stopPolling(id);
  return keepPolling(
    {
      ...id,
      target: "sign-account",
      work: { namespace: user.metadata.namespace, kind: "NatsUser", name: user.metadata.name },
      scope: { kind: "object", owner: user },
    },
    RECHECK,
  );
}

const draining = (reason: Reason, message: string): ConditionUpdate => ({
  type: "Distributed",
  status: "False",
  reason,
  message,
});

export function decideUserDeletion(observed: UserObserved, now: Date): UserDecision {
  const user = observed.object;
  const what = `NatsUser ${user.metadata.namespace}/${user.metadata.name}`;
  const previous = user.status ?? {};
  const base = { kind: "NatsUser" as const, object: user, generate: [], sign: [] as SignStep[] };
  if (!hasFinalizer(user, FINALIZERS.userRevoke))
    return { ...base, status: previous, events: [], schedules: [], summary: `${what}: being deleted` };

  const creds = observed.creds;
  const release = (why: string): UserDecision => ({
    ...base,
    status: previous,
    events: [],
    finalizer: "remove",
    schedules: [revokePoll(user, false)],
    summary: `${what}: deleted (${why})`,
  });
  const wait = (reason: Reason, message: string, kicks?: Kick[]): UserDecision => ({
    ...base,
    // Only the Distributed condition changes: Ready is not touched, so observedGeneration stays.
    ...settle(previous, previous, [draining(reason, message)], user.metadata.generation, now),
    ...(kicks ? { kicks } : {}),
    schedules: [revokePoll(user, true)],
    summary: `${what}: ${reason}: ${message}`,
  });

  const key = previous.publicKey ?? (creds.kind === "held" ? creds.publicKey : undefined);
  if (!key) return release("it holds no key");
  const ref = user.spec.accountRef;
  const accountName = `${ref.kind} ${namespaceOf(ref, user)}/${ref.name}`;
  const account = observed.account?.object;
  if (!account || account.metadata.deletionTimestamp) return release(`${accountName} is gone`);
  if (!observed.operatorExists) return release(`the NatsOperator of ${accountName} is gone`);
  // A system account's JWT is signed by its NatsOperator, into that operator's status.
  const jwt = observed.accountJwt;
  if (!jwt) return release(`${accountName} has no JWT`);
  const deletedAt = user.metadata.deletionTimestamp ?? now.toISOString();
  if (!revokes(jwt, key, deletedAt))
    return wait("Revoking", `waiting for ${accountName} to revoke key ${key} in its JWT`);

  // The servers close the system connection's own user once they take the revoking JWT: nothing
  // could confirm the rest through it, so the drain ends with the revocation signed.
  if (observed.systemConnectionUser)
    return release(`key ${key} revoked in ${accountName}'s JWT; it is the system connection's own user`);
  const reading = observed.connections ?? { kind: "off" };
  // Without a system connection nothing reaches the servers: the revocation signed is all there is.
  if (reading.kind === "off") return release(`key ${key} revoked in ${accountName}'s JWT`);
  const spread = account.status?.distribution;
  // A system account's distribution is counted for the JWT its hash names: until it has caught up
  // with the one its operator just signed, it says nothing of the revocation.
  const everywhere =
    account.status?.jwtHash === jwtHash(jwt) &&
    account.status.conditions?.some((c) => c.type === "Distributed" && c.status === "True") === true &&
    (spread?.servers ?? 0) > 0 &&
    spread?.current === spread?.servers;
  if (!everywhere)
    return wait(
      "Distributing",
      `${accountName} revokes key ${key}; waiting for every server to hold that JWT ` +
        `(${spread?.current ?? 0} of ${spread?.servers ?? 0})`,
    );
  if (reading.kind === "unreachable") return wait("Kicking", reading.message);
  // The account's roster keeps a server through two missed polls: one that is only slow may still
  // hold a connection of the key.
  const roster = [...new Set([...reading.roster, ...(spread?.roster ?? []).map((s) => s.id)])];
  const silent = roster.filter((id) => !reading.answered.includes(id));
  if (silent.length > 0) return wait("Kicking", `${silent.length} of ${roster.length} servers did not answer CONNZ`);
  const open = reading.connections.length;
  if (open > 0) {
    // Kicked once in this delivery already: the poll looks again rather than kicking in a loop.
    if (reading.lastKick)
      return wait(
        "Kicking",
        `${open} connection(s) of key ${key} still open after kicking` +
          (reading.lastKick.failed.length > 0 ? `: ${reading.lastKick.failed.join("; ")}` : ""),
      );
    return wait("Kicking", `closing ${open} connection(s) of key ${key}`, reading.connections);
  }
  return release(`key ${key} revoked on every server and no connection of it left`);
}
