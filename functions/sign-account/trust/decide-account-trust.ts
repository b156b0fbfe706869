// A NatsAccountTrust's decision (pure): in the reference form, the account's public key and JWT
// mirrored into status while the account is Ready, and cleared otherwise, so what a leaf remote
// binds to or a server preloads is never a JWT the account no longer stands behind. The literal
// form gets no status.
import type { NatsAccountTrustStatus } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { notReady, ready, referencesResolved, referencesUnresolved, settle } from "../conditions.ts";
import type { AccountTrustDecision } from "../decision.ts";
import { namespaceOf } from "../objects.ts";
import type { AccountTrustObserved } from "./types.ts";

export function decideAccountTrust(observed: AccountTrustObserved, now: Date): AccountTrustDecision {
  const trust = observed.object;
  const what = `NatsAccountTrust ${trust.metadata.namespace}/${trust.metadata.name}`;
  const previous = trust.status ?? {};
  const base = { kind: "NatsAccountTrust" as const, object: trust, generate: [], sign: [], schedules: [] };
  const ref = trust.spec.accountRef;
  if (!ref) return { ...base, status: previous, events: [], summary: `${what}: literal form, no status` };
  const { publicKey: _key, jwt: _jwt, ...cleared } = previous;
  const accountName = `NatsAccount ${namespaceOf(ref, trust)}/${ref.name}`;
  const finish = (status: NatsAccountTrustStatus, updates: ConditionUpdate[], summary: string) => ({
    ...base,
    ...settle(previous, status, updates, trust.metadata.generation, now),
    summary: `${what}: ${summary}`,
  });
  if (!observed.admitted) {
    const message =
      `no NatsReferenceGrant in namespace ${namespaceOf(ref, trust)} admits NatsAccountTrust from namespace ` +
      `${trust.metadata.namespace} to NatsAccount ${ref.name}`;
    return finish(
      cleared,
      [notReady({ reason: "ReferenceNotPermitted", message }), referencesUnresolved("NoGrant", message)],
      message,
    );
  }
  const account = observed.account;
  if (!account) {
    const message = `${accountName} does not exist`;
    return finish(
      cleared,
      [notReady({ reason: "ReferenceNotFound", message }), referencesUnresolved("ReferenceNotFound", message)],
      message,
    );
  }
  const status = account.status;
  const accountReady = status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  if (!accountReady || !status?.publicKey || !status.jwt || account.metadata.deletionTimestamp) {
    const message = `waiting for ${accountName} to be signed`;
    return finish(cleared, [notReady({ reason: "Pending", message }), referencesResolved()], message);
  }
  return finish(
    { ...previous, publicKey: status.publicKey, jwt: status.jwt },
    [ready(`mirrors the key and JWT of ${accountName}`, "Mirrored"), referencesResolved()],
    "mirrored",
  );
}
