// A NatsOperator's decision (pure): its keys, its operator JWT (self-signed by the identity, or
// the one given offline) and its system account's JWT (signed by its active signing key; its
// claims, revocations and takeover in system-account-jwt.ts).
import { isOperator } from "@nats-io/jwt";
import type { NatsOperatorStatus } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { operatorClaims } from "../jwt/claims.ts";
import { readJWT } from "../jwt/compare.ts";
import { signingKeyTrust } from "./trusted-signer.ts";
import { notReady, ready, referencesResolved, referencesUnresolved, type Refusal, settle } from "../conditions.ts";
import type { OperatorDecision, SignStep } from "../decision.ts";
import { judgeKeys, type KeyVerdict } from "../keys/key-verdict.ts";
import type { SigningKey } from "../keys/types.ts";
import { describeSubject, namespaceOf } from "../objects.ts";
import type { OperatorObserved } from "./types.ts";
import { planJwt } from "../jwt/plan-jwt.ts";
import { retiringKeysCondition } from "./retiring-keys.ts";
import { planSystemAccountJwt } from "./system-account-jwt.ts";

const describe = (o: { kind: string; metadata: { namespace: string; name: string } }) =>
  describeSubject({ kind: o.kind as "NatsOperator", namespace: o.metadata.namespace, name: o.metadata.name });

/** The offline operator JWT's subject, or why it cannot be used. */
function offlineJwt(
  what: string,
  jwt: string,
): { identity: string; signing: string[]; system?: string } | { reason: "InvalidJWT"; message: string } {
  const claims = readJWT(jwt);
  if (!claims || !isOperator(claims))
    return { reason: "InvalidJWT", message: `${what}: spec.jwt is not a verifiable operator JWT` };
  if (claims.iss !== claims.sub)
    return { reason: "InvalidJWT", message: `${what}: spec.jwt is not self-signed by operator ${claims.sub}` };
  const listed = (claims.nats["signing_keys"] ?? []) as unknown[];
  const signing = listed.filter((k): k is string => typeof k === "string");
  const system = typeof claims.nats["system_account"] === "string" ? claims.nats["system_account"] : undefined;
  return { identity: claims.sub, signing, ...(system ? { system } : {}) };
}

/** Why the system account cannot be signed yet, or its identity and signing keys. */
function systemAccountKeys(observed: OperatorObserved): { identity: string; signing: SigningKey[] } | Refusal {
  const operator = observed.object;
  const ref = operator.spec.systemAccountRef;
  const name = `NatsSystemAccount ${namespaceOf(ref, operator)}/${ref.name}`;
  const system = observed.systemAccount;
  if (!system) return { reason: "ReferenceNotFound", message: `${name} does not exist` };
  const back = system.object.spec.operatorRef;
  if (back.name !== operator.metadata.name || namespaceOf(back, system.object) !== operator.metadata.namespace)
    return { reason: "OperatorMismatch", message: `${name} names NatsOperator ${back.name}, not this one` };
  const recorded = system.object.status?.publicKey;
  if (!recorded) return { reason: "Pending", message: `waiting for ${name} to record its keys` };
  const verdict = judgeKeys(name, "systemaccount", system.keys, recorded, system.object.spec.publicKey);
  if (verdict.kind !== "ready" || verdict.identity !== recorded)
    return { reason: "Pending", message: `waiting for ${name} to have usable keys` };
  return { identity: verdict.identity, signing: verdict.signing };
}

const isRefusal = (x: object): x is Refusal => "reason" in x;

/**
 * The deleted accounts still worth deleting: an entry goes once the account's last JWT has expired
 * (no server accepts it then); one without `expires` stays. Undefined when none is left.
 */
export function unexpiredDeletions(
  listed: NatsOperatorStatus["deletedAccounts"],
  now: Date,
): NatsOperatorStatus["deletedAccounts"] {
  const left = (listed ?? []).filter((d) => !d.expires || Date.parse(d.expires) > now.getTime());
  return left.length > 0 ? left : undefined;
}

export function decideOperator(observed: OperatorObserved, now: Date): OperatorDecision {
  const operator = observed.object;
  const what = describe(operator);
  const previous = operator.status ?? {};
  const offline = operator.spec.jwt ? offlineJwt(what, operator.spec.jwt) : undefined;
  const verdict: KeyVerdict =
    offline && isRefusal(offline)
      ? { kind: "refused", ...offline }
      : judgeKeys(what, "operator", observed.keys, previous.publicKey, offline?.identity);
  const base = { kind: "NatsOperator" as const, object: operator, sign: [], schedules: [] };
  if (verdict.kind === "generate")
    return {
      ...base,
      generate: verdict.seeds,
      status: previous,
      events: [],
      summary: `generating ${verdict.seeds.map((s) => s.secret).join(", ")}`,
    };

  const finish = (
    status: NatsOperatorStatus,
    updates: ConditionUpdate[],
    sign: SignStep[],
    summary: string,
  ): OperatorDecision => {
    const settled = settle(previous, status, updates, operator.metadata.generation, now);
    return { ...base, generate: [], ...settled, sign, summary };
  };
  if (verdict.kind === "refused")
    return finish(previous, [notReady(verdict)], [], `${what}: ${verdict.reason}: ${verdict.message}`);

  const generated = [observed.keys.identity, ...observed.keys.signing].filter((s) => s?.generated);
  const keyed: NatsOperatorStatus = {
    ...previous,
    publicKey: verdict.identity,
    signingKeys: verdict.signing.map((s) => s.publicKey),
    ...(generated.length > 0
      ? {
          seedSecrets: {
            ...(observed.keys.identity?.generated ? { identity: observed.keys.identity.secret } : {}),
            signing: observed.keys.signing.filter((s) => s.generated).map((s) => s.secret),
          },
        }
      : {}),
  };
  const system = systemAccountKeys(observed);
  if (isRefusal(system)) {
    const unresolved =
      system.reason === "ReferenceNotFound" ? [referencesUnresolved("ReferenceNotFound", system.message)] : [];
    return finish(keyed, [notReady(system), ...unresolved], [], `${what}: ${system.reason}: ${system.message}`);
  }
  if (offline && !isRefusal(offline)) {
    const unlisted = verdict.signing.filter((s) => !s.retiring && !offline.signing.includes(s.publicKey));
    const refusal =
      offline.system !== system.identity
        ? `spec.jwt names system account ${offline.system ?? "(none)"}, not ${system.identity}`
        : unlisted.length > 0
          ? `spec.jwt does not list signing key ${unlisted.map((s) => s.publicKey).join(", ")}`
          : undefined;
    if (refusal)
      return finish(keyed, [notReady({ reason: "InvalidJWT", message: `${what}: ${refusal}` })], [], refusal);
  }

  const systemObject = observed.systemAccount?.object;
  const systemName = systemObject?.metadata.name ?? "";
  const operatorJwt = offline
    ? { keep: operator.spec.jwt }
    : planJwt(
        previous.jwt,
        {
          claims: operatorClaims(
            operator.metadata.name,
            verdict.identity,
            system.identity,
            verdict.signing.map((s) => s.publicKey),
          ),
          signer: verdict.identity,
          ttlSeconds: 0,
        },
        "jwt",
        now,
      );
  const systemJwt = planSystemAccountJwt(observed, system, verdict.active, now);
  if (systemJwt.kind === "refused")
    return finish(
      keyed,
      [notReady(systemJwt.refusal), referencesResolved()],
      [],
      `${what}: ${systemJwt.refusal.reason}: ${systemJwt.refusal.message}`,
    );
  const { deletedAccounts: listed, ...rest } = keyed;
  const deletedAccounts = unexpiredDeletions(listed, now);
  const status: NatsOperatorStatus = {
    ...rest,
    ...(deletedAccounts ? { deletedAccounts } : {}),
    ...(operatorJwt.keep ? { jwt: operatorJwt.keep } : {}),
    systemAccount: { ...systemJwt.status, ...(systemJwt.plan.keep ? { jwt: systemJwt.plan.keep } : {}) },
  };
  const sign = [operatorJwt.step, systemJwt.plan.step].filter((s): s is SignStep => s !== undefined);
  const retiring = retiringKeysCondition(
    verdict.signing.filter((s) => s.retiring).map((s) => s.publicKey),
    observed.accountJwts ?? [],
  );
  const trust = signingKeyTrust(observed.trust, verdict.identity, verdict.active);
  return finish(
    status,
    [
      ready(`operator ${verdict.identity} and system account ${systemName} are signed`),
      referencesResolved(),
      ...(systemJwt.condition ? [systemJwt.condition] : []),
      ...(retiring ? [retiring] : []),
      ...(trust ? [trust] : []),
    ],
    sign,
    sign.length > 0 ? `${what}: signing ${sign.map((s) => s.into).join(" and ")}` : `${what}: signed, unchanged`,
  );
}
