// A NatsOperatorTrust's decision (pure): in the reference form, the operator's JWT and its system
// account's JWT mirrored into status while the operator is Ready, and cleared otherwise. The
// literal form gets no status.
import type { NatsOperatorTrustStatus } from "../../../shared/api/index.ts";
import { notReady, ready, referencesResolved, referencesUnresolved, settle } from "../conditions.ts";
import type { TrustDecision } from "../decision.ts";
import { namespaceOf } from "../objects.ts";
import type { TrustObserved } from "./types.ts";

export function decideTrust(observed: TrustObserved, now: Date): TrustDecision {
  const trust = observed.object;
  const what = `NatsOperatorTrust ${trust.metadata.namespace}/${trust.metadata.name}`;
  const previous = trust.status ?? {};
  const base = { kind: "NatsOperatorTrust" as const, object: trust, generate: [], sign: [], schedules: [] };
  const ref = trust.spec.operatorRef;
  if (!ref) return { ...base, status: previous, events: [], summary: `${what}: literal form, no status` };
  const { operatorJWT: _o, systemAccountJWT: _s, ...cleared } = previous;
  const operatorName = `NatsOperator ${namespaceOf(ref, trust)}/${ref.name}`;
  const finish = (status: NatsOperatorTrustStatus, updates: Parameters<typeof settle>[2], summary: string) => ({
    ...base,
    ...settle(previous, status, updates, trust.metadata.generation, now),
    summary: `${what}: ${summary}`,
  });
  if (!observed.admitted) {
    const message =
      `no NatsReferenceGrant in namespace ${namespaceOf(ref, trust)} admits NatsOperatorTrust from namespace ` +
      `${trust.metadata.namespace} to NatsOperator ${ref.name}`;
    return finish(
      cleared,
      [notReady({ reason: "ReferenceNotPermitted", message }), referencesUnresolved("NoGrant", message)],
      message,
    );
  }
  const operator = observed.operator;
  if (!operator) {
    const message = `${operatorName} does not exist`;
    return finish(
      cleared,
      [notReady({ reason: "ReferenceNotFound", message }), referencesUnresolved("ReferenceNotFound", message)],
      message,
    );
  }
  const status = operator.status;
  const operatorReady = status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  const systemAccountJWT = status?.systemAccount?.jwt;
  if (!operatorReady || !status?.jwt || !systemAccountJWT) {
    const message = `waiting for ${operatorName} to sign its operator and system account JWTs`;
    return finish(cleared, [notReady({ reason: "Pending", message }), referencesResolved()], message);
  }
  return finish(
    { ...previous, operatorJWT: status.jwt, systemAccountJWT },
    [ready(`mirrors the JWTs of ${operatorName}`, "Mirrored"), referencesResolved()],
    "mirrored",
  );
}
