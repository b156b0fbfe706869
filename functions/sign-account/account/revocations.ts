// An account's user revocations (pure). The list an account JWT carries is merged from three
// sources, so that losing any one of them loses no revocation: what status.revocations records,
// what the JWT being replaced carries, and the users of the account that are revoked now (deleted
// with the revoke finalizer, or holding a key no longer: status.replacedKeys). The latest time
// wins per key. An entry goes once none of the keys that may have signed the revoked JWT signs for
// the account any more; an entry the account identity may have signed never goes.
import { FINALIZERS, type NatsAccountStatus } from "../../../shared/api/index.ts";
import { hasFinalizer } from "../../../shared/kube/index.ts";
import { readJWT } from "../jwt/compare.ts";
import type { NatsUser } from "../objects.ts";

export type Revocation = NonNullable<NatsAccountStatus["revocations"]>[number];

/** A user key to revoke, from `at` on (JWTs issued at or before it are refused). */
export interface RevokedKey {
  publicKey: string;
  at: string;
}

/** Seconds since the epoch of an RFC 3339 time; NaN when it is not one. */
export const secondsOf = (time: string): number => Math.floor(Date.parse(time) / 1000);

/** An RFC 3339 time at whole seconds, as status and JWTs both count in seconds. */
export const timeOf = (seconds: number): string => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The revocations a JWT carries (key → seconds), and the signing keys it lists; empty for none. */
export function jwtRevocations(jwt: string | undefined): { revoked: Record<string, number>; signing: string[] } {
  const claims = readJWT(jwt)?.nats as { revocations?: unknown; signing_keys?: unknown } | undefined;
  const revoked: Record<string, number> = {};
  if (claims?.revocations && typeof claims.revocations === "object")
    for (const [key, at] of Object.entries(claims.revocations as Record<string, unknown>))
      if (typeof at === "number") revoked[key] = at;
  const keys = Array.isArray(claims?.signing_keys) ? (claims.signing_keys as unknown[]) : [];
  // A scoped signing key is listed as an object carrying its key.
  const signing = keys.flatMap((k) =>
    typeof k === "string" ? [k] : k && typeof k === "object" && "key" in k ? [String(k.key)] : [],
  );
  return { revoked, signing };
}

/** Whether `jwt` (an account JWT) revokes `userKey` for JWTs issued at `at` or before. */
export function revokes(jwt: string | undefined, userKey: string, at: string): boolean {
  const { revoked } = jwtRevocations(jwt);
  const since = revoked[userKey];
  return since !== undefined && since >= secondsOf(at);
}

export interface RevocationInputs {
  recorded: readonly Revocation[] | undefined;
  /** The account JWT being replaced. */
  previousJwt: string | undefined;
  /**
   * The JWT the servers hold, when status lost its own: its revocations are kept with the identity
   * among their issuers, since who signed the revoked JWTs is not known, so they never go.
   */
  recoveredJwt?: string | undefined;
  /** Keys to revoke now, signed by the current signing keys. */
  revokedNow: readonly RevokedKey[];
  /** The account's signing keys now, retiring ones included. */
  signing: readonly string[];
  identity: string;
}

/** The merged list, sorted by key, and the `revocations` claim it signs to (undefined when empty). */
export function mergeRevocations(inputs: RevocationInputs): {
  revocations: Revocation[];
  claim?: Record<string, number>;
} {
  const byKey = new Map<string, { at: number; issuers: Set<string> }>();
  const add = (publicKey: string, at: number, issuers: readonly string[]) => {
    if (!Number.isFinite(at)) return;
    const entry = byKey.get(publicKey);
    if (!entry) {
      byKey.set(publicKey, { at, issuers: new Set(issuers) });
      return;
    }
    entry.at = Math.max(entry.at, at);
    for (const issuer of issuers) entry.issuers.add(issuer);
  };
  for (const r of inputs.recorded ?? []) add(r.publicKey, secondsOf(r.at), r.issuers ?? []);
  const previous = jwtRevocations(inputs.previousJwt);
  for (const [key, at] of Object.entries(previous.revoked)) add(key, at, previous.signing);
  const recovered = jwtRevocations(inputs.recoveredJwt);
  for (const [key, at] of Object.entries(recovered.revoked)) add(key, at, [...recovered.signing, inputs.identity]);
  for (const r of inputs.revokedNow) add(r.publicKey, secondsOf(r.at), inputs.signing);

  const current = new Set([...inputs.signing, inputs.identity]);
  const revocations: Revocation[] = [];
  for (const [publicKey, { at, issuers }] of [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // An entry that names no issuer cannot be told to be stale: it stays.
    if (issuers.size > 0 && ![...issuers].some((i) => current.has(i))) continue;
    revocations.push({ publicKey, at: timeOf(at), ...(issuers.size > 0 ? { issuers: [...issuers].sort() } : {}) });
  }
  if (revocations.length === 0) return { revocations };
  return { revocations, claim: Object.fromEntries(revocations.map((r) => [r.publicKey, secondsOf(r.at)])) };
}

/**
 * The keys the users of an account give up now: a user deleted with the revoke finalizer from its
 * deletion time (unless another user still holds the key, A33), and every key a user lists in
 * status.replacedKeys from the time it was replaced.
 */
export function revokedByUsers(users: readonly NatsUser[]): RevokedKey[] {
  const held = new Set(
    users
      .filter((u) => !u.metadata.deletionTimestamp)
      .flatMap((u) => (u.status?.publicKey ? [u.status.publicKey] : [])),
  );
  return users.flatMap((u) => {
    // A key given up that another user holds (a user refused the key it had recorded) is not revoked.
    const replaced = (u.status?.replacedKeys ?? [])
      .filter((r) => !held.has(r.publicKey))
      .map((r) => ({ publicKey: r.publicKey, at: r.at }));
    const key = u.status?.publicKey;
    const deleted = u.metadata.deletionTimestamp;
    const gone =
      key && deleted && hasFinalizer(u, FINALIZERS.userRevoke) && !held.has(key)
        ? [{ publicKey: key, at: deleted }]
        : [];
    return [...replaced, ...gone];
  });
}
