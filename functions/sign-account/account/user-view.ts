// What a NatsUser's reconcile reads of its NatsAccount (pure): the account's key, whether it is
// Ready (admitted, its seeds whole), the signing keys and revocations of its JWT, and whether every
// server holds that JWT (user/decide.ts, user/distributed.ts). Nothing else of the account changes a user's decision: a
// change of limits, exports, imports or jwtTTL re-signs the account JWT with the same signing keys
// and revocations, under which every user's creds stay valid, so no user is reconciled for it:
// neither after the account's reconcile (its dependents) nor by the resync sweep, which compares
// this view, not the account's resourceVersion, with what each user's reconcile recorded.
import { KINDS } from "../../../shared/api/index.ts";
import { findCondition } from "../../../shared/kube/index.ts";
import { type InputFacet, qualifiedKind } from "../../../shared/runtime/index.ts";
import { readJWT } from "../jwt/compare.ts";
import { jwtHash } from "../jwt/hash.ts";
import type { NatsAccount } from "../objects.ts";

/**
 * The account as its users see it, as text two readings compare by. Undefined, so that every
 * reconcile concerns its users, while the account is being deleted (they lose it) and while a
 * signing key is retiring (spec.keys.signing[].retiring, which no status shows: users signed by it
 * are re-signed by another key).
 */
export function userView(account: NatsAccount): string | undefined {
  if (account.metadata.deletionTimestamp) return undefined;
  if ((account.spec.keys?.signing ?? []).some((k) => k.retiring === true)) return undefined;
  const status = account.status ?? {};
  const claims = readJWT(status.jwt);
  const nats = (claims?.nats ?? {}) as { signing_keys?: unknown; revocations?: unknown };
  const ready = findCondition(status.conditions, "Ready");
  const distributed = findCondition(status.conditions, "Distributed");
  const servers = status.distribution?.servers ?? 0;
  const current = status.distribution?.current ?? 0;
  const everywhere = distributed?.status === "True" && servers > 0 && current === servers;
  return JSON.stringify({
    publicKey: status.publicKey,
    offline: account.spec.publicKey,
    // Ready's reason covers its admission (ReferenceNotPermitted) and a seed it lost, which users read too.
    ready: [ready?.status, ready?.reason],
    subject: claims?.sub,
    signing: nats.signing_keys,
    revocations: nats.revocations,
    counted: status.jwt !== undefined && status.jwtHash === jwtHash(status.jwt),
    // Users waiting for the servers quote the account's count and its Distributed condition.
    servers,
    distribution: everywhere
      ? "everywhere"
      : { current, status: distributed?.status, reason: distributed?.reason, message: distributed?.message },
  });
}

/** A user's reconcile records its account through this view (shared/runtime/inputs.ts). */
export const userViewOfAccount: InputFacet = {
  reader: qualifiedKind(KINDS.NatsUser.apiVersion, "NatsUser"),
  input: qualifiedKind(KINDS.NatsAccount.apiVersion, "NatsAccount"),
  name: "user-view",
  // An account whose view cannot be told (being deleted, a key retiring) is a change whenever it is written.
  version: (object) => userView(object as NatsAccount) ?? `resourceVersion ${object.metadata.resourceVersion ?? ""}`,
};
