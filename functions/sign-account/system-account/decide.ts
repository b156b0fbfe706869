// A NatsSystemAccount's decision (pure): its keys and recorded public key, and the distribution of
// its JWT. The JWT is signed by the NatsOperator that names it (decide-operator.ts) into that
// operator's status; here it is read and, with a system connection, pushed to every server as the
// system account's own (its status.distribution, its JWTPushed Event), so that a re-signed system
// account JWT (a revoked system user, a rotated operator signing key) reaches running servers.
import { type NatsSystemAccountStatus, AUTH_REASONS } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { notReady, ready, referencesResolved, referencesUnresolved, settle, type Refusal } from "../conditions.ts";
import type { SystemAccountDecision } from "../decision.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import { claimsOf, heldBy, holdingOf, keyHolder } from "../keys/key-claims.ts";
import { readJWT } from "../jwt/compare.ts";
import { distributedUnderTrust } from "../operator/trusted-signer.ts";
import { decideDistribution, distributionPoll } from "../servers/distribution.ts";
import { jwtHash } from "../jwt/hash.ts";
import { namespaceOf } from "../objects.ts";
import type { SystemAccountObserved } from "./types.ts";

const offlineKeyRefusal = (what: string, publicKey: string | undefined): Refusal | undefined =>
  publicKey !== undefined && !publicKey.startsWith("A")
    ? { reason: "InvalidKeys", message: `${what}: spec.publicKey ${publicKey} is not an account key` }
    : undefined;

export function decideSystemAccount(observed: SystemAccountObserved, now: Date): SystemAccountDecision {
  const account = observed.object;
  const what = `NatsSystemAccount ${account.metadata.namespace}/${account.metadata.name}`;
  const previous = account.status ?? {};
  const base = { kind: "NatsSystemAccount" as const, object: account, sign: [] };
  const badKey = offlineKeyRefusal(what, account.spec.publicKey);
  const verdict = badKey
    ? ({ kind: "refused", ...badKey } as const)
    : judgeKeys(what, "systemaccount", observed.keys, previous.publicKey, account.spec.publicKey);
  if (verdict.kind === "generate")
    return {
      ...base,
      generate: verdict.seeds,
      status: previous,
      events: [],
      schedules: [],
      summary: `generating ${verdict.seeds.map((s) => s.secret).join(", ")}`,
    };
  /** `jwt` is the one its operator signed, once it is this account's; `mayPush` false while it must not reach servers. */
  const finish = (
    status: NatsSystemAccountStatus,
    updates: ConditionUpdate[],
    summary: string,
    jwt?: string,
    mayPush = true,
  ): SystemAccountDecision => {
    const counted = decideDistribution(observed.distribution, jwt, false, previous.distribution, mayPush && !!jwt);
    // A JWT signed by a key some server does not trust is refused there (A10).
    const reach = { ...counted, condition: distributedUnderTrust(counted.condition, jwt, observed.operator) };
    const conditions =
      reach.condition.status === "True"
        ? updates.map((u) =>
            u.type === "Ready" && u.status === "True" ? { ...u, reason: AUTH_REASONS.Distributed } : u,
          )
        : updates;
    const withDistribution = reach.distribution ? { ...status, distribution: reach.distribution } : status;
    return {
      ...base,
      generate: [],
      ...settle(previous, withDistribution, [...conditions, reach.condition], account.metadata.generation, now),
      ...(reach.push && jwt ? { push: true, jwt } : {}),
      // Without a system connection there is no poll to keep or end. Kept while the operator's
      // revocation recovery waits: each poll reconciles the operator after this, which asks again.
      schedules:
        observed.distribution.kind === "off" ? [] : [distributionPoll(account, (reach.settled && mayPush) || !jwt)],
      summary: `${what}: ${summary}${reach.push ? ", pushing" : ""}; ${reach.condition.message}`,
    };
  };
  if (verdict.kind === "refused") return finish(previous, [notReady(verdict)], verdict.message);

  // Its key is its own only if no NatsAccount under the operator holds it first (key-claims.ts).
  const holder = keyHolder(holdingOf(account, observed.keys), verdict.identity, observed.others.flatMap(claimsOf));
  if (holder) {
    const { publicKey: _key, jwtHash: _hash, ...unkeyed } = previous;
    const message = `account key ${verdict.identity} is already held by ${heldBy(holder)}; ${what} is not signed with it`;
    return finish(
      previous.publicKey === verdict.identity ? unkeyed : previous,
      [notReady({ reason: "PublicKeyInUse", message })],
      message,
    );
  }
  const keyed = { ...previous, publicKey: verdict.identity };
  const ref = account.spec.operatorRef;
  const operatorName = `NatsOperator ${namespaceOf(ref, account)}/${ref.name}`;
  const operator = observed.operator;
  if (!operator) {
    const message = `${operatorName} does not exist`;
    return finish(
      keyed,
      [notReady({ reason: "ReferenceNotFound", message }), referencesUnresolved("ReferenceNotFound", message)],
      message,
    );
  }
  const named = operator.spec.systemAccountRef;
  if (named.name !== account.metadata.name || namespaceOf(named, operator) !== account.metadata.namespace) {
    const message = `${operatorName} names NatsSystemAccount ${named.name}, not this one: it is not signed`;
    return finish(keyed, [notReady({ reason: "NotReferenced", message }), referencesResolved()], message);
  }
  const signed = operator.status?.systemAccount;
  // Its first JWT would drop claims of the one the servers hold (A48): told here too.
  const takeover = operator.status?.conditions?.find(
    (c) => c.type === "Ready" && c.reason === AUTH_REASONS.AdoptionDropsClaims,
  );
  if (takeover && !signed?.jwt)
    return finish(
      keyed,
      [
        notReady({ reason: "AdoptionDropsClaims", message: `${operatorName}: ${takeover.message}` }),
        referencesResolved(),
      ],
      takeover.message,
    );
  const claims = readJWT(signed?.jwt);
  if (!signed?.jwt || signed.publicKey !== verdict.identity || claims?.sub !== verdict.identity) {
    const message = `waiting for ${operatorName} to sign it`;
    return finish(keyed, [notReady({ reason: "Pending", message }), referencesResolved()], message);
  }
  // Its JWT may lack revocations the servers hold while the operator reads RevocationsUnrecovered (A21).
  const unrecovered = operator.status?.conditions?.some(
    (c) => c.type === "RevocationsUnrecovered" && c.status === "True",
  );
  // Its revocations, as its operator signed them, are shown here too.
  const { revocations: _revocations, ...unrevoked } = keyed;
  return finish(
    { ...unrevoked, jwtHash: jwtHash(signed.jwt), ...(signed.revocations ? { revocations: signed.revocations } : {}) },
    [ready(`signed by ${operatorName}; the JWT is in its status.systemAccount`), referencesResolved()],
    "signed",
    signed.jwt,
    !unrecovered,
  );
}
