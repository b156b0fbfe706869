// The system account's JWT, as its NatsOperator signs it (pure): its claims with the revocations of
// its users (A25, A27), recovered first from the servers when the operator's status lost them
// (A21, A26), refused while it would drop claims of a JWT made elsewhere (A48), and signed again
// when a server holds a newer one, with that one's revocations (observe reads it then, A26).
import { type NatsOperatorStatus, AUTH_REASONS } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { systemAdoptionRefusal } from "../account/adoption.ts";
import { systemAccountClaims } from "../jwt/claims.ts";
import { revocationsUnrecovered, type Refusal } from "../conditions.ts";
import { jwtHash } from "../jwt/hash.ts";
import type { SigningKey } from "../keys/types.ts";
import type { OperatorObserved } from "./types.ts";
import { recoverFrom, type Recovery } from "../account/recovery.ts";
import { mergeRevocations, revokedByUsers } from "../account/revocations.ts";
import { signingKeyClaims } from "../keys/scoped-keys.ts";
import { stepdownImports } from "./stepdown-imports.ts";
import { planJwt, type JwtPlan } from "../jwt/plan-jwt.ts";

type SystemAccountStatus = NonNullable<NatsOperatorStatus["systemAccount"]>;

export type SystemJwtPlan =
  | { kind: "refused"; refusal: Refusal }
  | {
      kind: "planned";
      plan: JwtPlan;
      /** The operator's status.systemAccount, but for the JWT (act puts a new one in). */
      status: SystemAccountStatus;
      /** RevocationsUnrecovered, while a recovery ran. */
      condition?: ConditionUpdate;
    };

function recoveryCondition(recovery: Recovery | undefined): ConditionUpdate | undefined {
  if (!recovery) return undefined;
  if (recovery.kind === "unanswered")
    return revocationsUnrecovered(
      "True",
      "ServersUnanswered",
      "the system account JWT is signed without the revocations the servers may hold, and not pushed until " +
        `every server answers: ${recovery.message}`,
    );
  return revocationsUnrecovered(
    "False",
    "Recovered",
    recovery.jwt
      ? `system account revocations recovered from the JWT the servers hold (${recovery.servers} servers answered)`
      : `no server holds a system account JWT (${recovery.servers} servers answered): nothing to recover`,
  );
}

export function planSystemAccountJwt(
  observed: OperatorObserved,
  system: { identity: string; signing: SigningKey[] },
  signer: string,
  now: Date,
): SystemJwtPlan {
  const previous = observed.object.status?.systemAccount;
  const systemObject = observed.systemAccount?.object;
  const name = systemObject?.metadata.name ?? "";
  const previousJwt = previous?.jwt;
  // A status that lost them recovers the revocations the servers' JWT carries; the JWT is signed
  // meanwhile (trusts and booting servers need it) but not pushed.
  const recovery =
    observed.systemRecovery && observed.systemRecovery.kind !== "off"
      ? recoverFrom(observed.systemRecovery, systemObject?.status?.distribution, system.identity)
      : undefined;
  // Its deleted users and replaced keys, merged with what status recorded and the JWT being
  // replaced; the issuers are its signing keys, so rotating them is what resets the list.
  const { revocations, claim } = mergeRevocations({
    recorded: previous?.revocations,
    previousJwt,
    ...(recovery?.kind === "recovered" && recovery.jwt ? { recoveredJwt: recovery.jwt } : {}),
    revokedNow: revokedByUsers(observed.systemUsers ?? []),
    signing: system.signing.map((s) => s.publicKey),
    identity: system.identity,
  });
  const plain = systemAccountClaims(
    name,
    system.identity,
    signingKeyClaims(system.signing),
    stepdownImports(observed.stepdownAccounts ?? []),
  );
  const claims = claim ? { ...plain, nats: { ...plain.nats, revocations: claim } } : plain;
  // The first JWT signed replaces one made elsewhere only if it drops none of its claims: nothing
  // is signed meanwhile, and the servers keep theirs.
  const takeover =
    recovery?.kind === "recovered" && recovery.jwt && !previousJwt
      ? systemAdoptionRefusal(systemObject?.spec.adoption?.droppedClaims, recovery.jwt, claims.nats)
      : undefined;
  if (takeover) return { kind: "refused", refusal: takeover };
  // A server holding a newer JWT than the one signed (a push would not stick): signed again.
  const newerHeld =
    previousJwt !== undefined &&
    systemObject?.status?.jwtHash === jwtHash(previousJwt) &&
    systemObject.status.conditions?.some((c) => c.type === "Distributed" && c.reason === AUTH_REASONS.NewerJWTHeld) ===
      true;
  // System account JWTs never expire: literal copies in trusts would go stale.
  const plan = planJwt(
    newerHeld ? undefined : previousJwt,
    { claims, signer, ttlSeconds: 0 },
    "systemAccount.jwt",
    now,
  );
  const { revocations: _revocations, jwt: _jwt, ...kept } = previous ?? {};
  const condition = recoveryCondition(recovery);
  return {
    kind: "planned",
    plan,
    status: { ...kept, name, publicKey: system.identity, ...(revocations.length > 0 ? { revocations } : {}) },
    ...(condition ? { condition } : {}),
  };
}
