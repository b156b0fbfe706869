// Which accounts import from an exporter (a NatsAccount, or the system account for its monitoring
// exports): they are reconciled after it, so a new key, a withdrawn export or a rotated signing key
// reaches their JWTs and activation tokens in the same delivery. A NatsAccount's importers are
// looked for only when what they read of it changed (importerView), since finding them takes a
// listing of every account: imports name their exporter in a list, which no field selector reaches.
import { GRANT_REASONS } from "../../../shared/api/index.ts";
import { findCondition } from "../../../shared/kube/index.ts";
import { readJWT } from "../jwt/compare.ts";
import { refersTo, type NatsAccount, type Subject } from "../objects.ts";

export const importersOf = (accounts: NatsAccount[], exporter: Subject): NatsAccount[] =>
  accounts.filter((a) =>
    (a.spec.imports ?? []).some((i) => i.accountRef?.kind === exporter.kind && refersTo(i.accountRef, a, exporter)),
  );

/**
 * What an importer's reconcile reads of the NatsAccount it imports from (wiring/imports.ts), as
 * the exporter's reconcile leaves it, as text two readings compare by: whether it is admitted, its
 * key, the exports and signing keys its JWT carries (an edit of spec.exports re-signs it) and the
 * importers its private exports list (status.exports). The views before and after the exporter's
 * reconcile are compared, so only what a reconcile writes belongs here. Undefined, so that every
 * reconcile concerns its importers, while it is being deleted. A change of limits, revocations
 * or distribution concerns no importer.
 */
export function importerView(account: NatsAccount): string | undefined {
  if (account.metadata.deletionTimestamp) return undefined;
  const ready = findCondition(account.status?.conditions, "Ready");
  const nats = (readJWT(account.status?.jwt)?.nats ?? {}) as { exports?: unknown; signing_keys?: unknown };
  return JSON.stringify({
    admitted: !(ready?.status === "False" && ready.reason === GRANT_REASONS.ReferenceNotPermitted),
    publicKey: account.status?.publicKey,
    exports: nats.exports,
    signing: nats.signing_keys,
    importers: account.status?.exports,
  });
}
