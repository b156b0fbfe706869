// A NatsUser's decision (pure): its account, its key (held in its creds Secret, generated, or its
// own publicKey), and its JWT signed by the account's active signing key into the creds Secret or,
// for a user with publicKey, into status.jwt.
import { FINALIZERS, type NatsUserStatus, GRANT_REASONS } from "../../../shared/api/index.ts";
import { type ConditionUpdate, hasFinalizer } from "../../../shared/kube/index.ts";
import { userClaims } from "../jwt/claims.ts";
import {
  noSystemConnection,
  notReady,
  notSigned,
  ready,
  referencesResolved,
  referencesUnresolved,
  settle,
  type Refusal,
} from "../conditions.ts";
import type { CredsWrite, SignStep, UserDecision } from "../decision.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import { claimsOf, heldBy, keyHolder, type KeyHolding } from "../keys/key-claims.ts";
import { namespaceOf, roleOf, type NatsUser } from "../objects.ts";
import { credsSecretOf } from "./creds.ts";
import type { UserObserved } from "./types.ts";
import { decideUserDeletion } from "./deletion.ts";
import { revokes, secondsOf, timeOf } from "../account/revocations.ts";
import { roleSigner, roleUserClaims } from "../keys/scoped-keys.ts";
import { planJwt } from "../jwt/plan-jwt.ts";
import { userDistribution } from "./distributed.ts";

/** What a user says of its key, for the uniqueness check among the users of its account (key-claims.ts). */
const holdingOfUser = (user: NatsUser): KeyHolding => ({
  holder: `NatsUser ${user.metadata.namespace}/${user.metadata.name}`,
  createdAt: user.metadata.creationTimestamp ?? "",
  ...(user.status?.publicKey ? { recorded: user.status.publicKey } : {}),
  ...(user.spec.publicKey ? { named: user.spec.publicKey } : {}),
});

/**
 * status.replacedKeys after this decision: the key held until now when the user gives it up (a new
 * publicKey, or a creds Secret rewritten with a new key), revoked from now on, and none the account
 * JWT already revokes (nor the key held again).
 */
export function replacedKeys(
  previous: NatsUserStatus,
  next: string | undefined,
  accountJwt: string | undefined,
  now: Date,
): NonNullable<NatsUserStatus["replacedKeys"]> {
  const list = [...(previous.replacedKeys ?? [])];
  const old = previous.publicKey;
  if (old && old !== next && !list.some((r) => r.publicKey === old))
    list.push({ publicKey: old, at: timeOf(secondsOf(now.toISOString())) });
  return list.filter((r) => r.publicKey !== next && !revokes(accountJwt, r.publicKey, r.at));
}

export function decideUser(observed: UserObserved, now: Date): UserDecision {
  const user = observed.object;
  if (user.metadata.deletionTimestamp) return decideUserDeletion(observed, now);
  const what = `NatsUser ${user.metadata.namespace}/${user.metadata.name}`;
  const previous = user.status ?? {};
  const ref = user.spec.accountRef;
  const accountNamespace = namespaceOf(ref, user);
  const accountName = `${ref.kind} ${accountNamespace}/${ref.name}`;
  const finish = (
    status: NatsUserStatus,
    updates: ConditionUpdate[],
    summary: string,
    extra: { sign?: SignStep[]; creds?: CredsWrite; distributed?: ConditionUpdate } = {},
  ): UserDecision => {
    // A signed user carries the revoke finalizer: deleting it revokes its key first (in its
    // NatsAccount's JWT, or in its NatsSystemAccount's, which the NatsOperator signs).
    const revocable = extra.distributed !== undefined;
    const distributed = extra.distributed ?? (observed.systemConnection ? notSigned() : noSystemConnection());
    return {
      kind: "NatsUser",
      object: user,
      generate: [],
      ...settle(previous, status, [...updates, distributed], user.metadata.generation, now),
      sign: extra.sign ?? [],
      ...(extra.creds ? { creds: extra.creds } : {}),
      ...(revocable && !hasFinalizer(user, FINALIZERS.userRevoke) ? { finalizer: "add" as const } : {}),
      schedules: [],
      summary: `${what}: ${summary}`,
    };
  };
  const refuse = (refusal: Refusal, unresolved?: ConditionUpdate) =>
    finish(previous, [notReady(refusal), unresolved ?? referencesResolved()], `${refusal.reason}: ${refusal.message}`);
  // Refused and giving up the key it held (A36): its account revokes it (status.replacedKeys), and a
  // creds Secret it owns is emptied, so a new key is minted if it is admitted again.
  const revokeHeld = (refusal: Refusal, unresolved?: ConditionUpdate) => {
    const { publicKey: _key, jwt: _jwt, replacedKeys: _replaced, ...unkeyed } = previous;
    // A key its creds Secret holds that status lost is given up too.
    const heldKey = observed.creds.kind === "held" ? observed.creds.publicKey : undefined;
    const giving = previous.publicKey ?? heldKey;
    const pending = replacedKeys(
      { ...previous, ...(giving ? { publicKey: giving } : {}) },
      undefined,
      observed.accountJwt,
      now,
    );
    const status = pending.length > 0 ? { ...unkeyed, replacedKeys: pending } : unkeyed;
    const held = observed.creds.kind === "held" ? observed.creds.resourceVersion : undefined;
    const emptied = held ? { clearCreds: { secret: credsSecretOf(user).name, resourceVersion: held } } : {};
    const revoking = giving ? `, revoking ${giving}` : "";
    return {
      ...finish(
        status,
        [notReady(refusal), unresolved ?? referencesResolved()],
        `${refusal.reason}: ${refusal.message}${revoking}`,
      ),
      ...emptied,
    };
  };

  if (!observed.admitted) {
    const message =
      `no NatsReferenceGrant in namespace ${accountNamespace} admits NatsUser from namespace ` +
      `${user.metadata.namespace} to ${ref.kind} ${ref.name}`;
    return revokeHeld({ reason: "ReferenceNotPermitted", message }, referencesUnresolved("NoGrant", message));
  }
  const account = observed.account;
  if (!account) {
    const message = `${accountName} does not exist`;
    return refuse({ reason: "ReferenceNotFound", message }, referencesUnresolved("ReferenceNotFound", message));
  }
  const accountReady = account.object.status?.conditions?.find((c) => c.type === "Ready");
  if (accountReady?.reason === GRANT_REASONS.ReferenceNotPermitted)
    return refuse({ reason: "AccountNotAdmitted", message: `${accountName} is not admitted to its NatsOperator` });
  const recorded = account.object.status?.publicKey;
  const keys = judgeKeys(
    accountName,
    roleOf(account.object.kind),
    account.keys,
    recorded,
    account.object.spec.publicKey,
  );
  if (!recorded || keys.kind !== "ready" || keys.identity !== recorded)
    return refuse({ reason: "Pending", message: `waiting for ${accountName} to record its keys` });

  const credsSecret = credsSecretOf(user);
  if (observed.creds.kind === "foreign")
    return refuse({
      reason: "SecretConflict",
      message: `Secret ${credsSecret.name} exists and is not owned by ${what}; it is never overwritten`,
    });

  const ownKey = user.spec.publicKey;
  if (ownKey !== undefined) {
    if (!ownKey.startsWith("U"))
      return refuse({ reason: "InvalidKeys", message: `${what}: spec.publicKey ${ownKey} is not a user key` });
    const holder = keyHolder(holdingOfUser(user), ownKey, observed.siblings.map(holdingOfUser).flatMap(claimsOf));
    if (holder) {
      const refusal: Refusal = {
        reason: "PublicKeyInUse",
        message: `user key ${ownKey} is already held by ${heldBy(holder)}; ${what} is not signed with it`,
      };
      // The key it held before is given up (revoked), unless it is the one refused.
      return previous.publicKey === ownKey
        ? finish(
            (({ publicKey: _key, jwt: _jwt, ...rest }) => rest)(previous),
            [notReady(refusal), referencesResolved()],
            `PublicKeyInUse: ${refusal.message}`,
          )
        : revokeHeld(refusal);
    }
  }
  const held = observed.creds.kind === "held" ? observed.creds : undefined;
  const userKey = ownKey ?? held?.publicKey;
  // A user with a role is signed by the scoped key of that role, and carries no permissions of its own.
  const role = user.spec.role;
  const signer = role ? roleSigner(keys.signing, role) : keys.active;
  if (!signer)
    return refuse({
      reason: "RoleNotFound",
      message: `${accountName} has no scoped signing key of role ${role} that is not retiring; ${what} is not signed`,
    });
  // A generated key is not known yet: act makes it and fills in the subject.
  const request = {
    claims: role
      ? roleUserClaims(user.metadata.name, userKey ?? "", keys.identity)
      : userClaims(user.metadata.name, userKey ?? "", keys.identity, user.spec),
    signer,
    ttlSeconds: 0,
  };
  // Ready once its creds work: with a system connection, once every server holds the account JWT
  // its JWT is valid under (A20).
  const signedBy = `signed by ${accountName} with signing key ${signer}${role ? ` (scoped, role ${role})` : ""}`;
  const reach = userDistribution(
    account.object,
    accountName,
    observed.accountJwt,
    signer,
    observed.systemConnection === true,
  );
  const readyNow = [
    reach.waitsFor ? notReady({ reason: "Pending", message: `${signedBy}; ${reach.waitsFor}` }) : ready(signedBy),
    referencesResolved(),
  ];
  // Keys given up are revoked by the account (A34): listed until its JWT carries the revocation.
  const { replacedKeys: _replaced, ...unreplaced } = previous;
  const withReplaced = (next: string | undefined): NatsUserStatus => {
    const pending = replacedKeys(previous, next, observed.accountJwt, now);
    return pending.length > 0 ? { ...unreplaced, replacedKeys: pending } : unreplaced;
  };
  if (ownKey !== undefined) {
    const plan = planJwt(previous.jwt, request, "jwt", now);
    const status = { ...withReplaced(ownKey), publicKey: ownKey, ...(plan.keep ? { jwt: plan.keep } : {}) };
    return finish(status, readyNow, plan.step ? "signing status.jwt" : "signed, unchanged", {
      ...(plan.step ? { sign: [plan.step] } : {}),
      distributed: reach.condition,
    });
  }
  const { jwt: _jwt, ...withoutJwt } = withReplaced(userKey);
  const plan = userKey ? planJwt(held?.jwt, request, "creds", now) : { step: { request, into: "creds" as const } };
  const status = { ...withoutJwt, ...(userKey ? { publicKey: userKey } : {}) };
  if (!plan.step) return finish(status, readyNow, "signed, unchanged", { distributed: reach.condition });
  const version = observed.creds.kind !== "none" ? observed.creds.resourceVersion : undefined;
  return finish(status, readyNow, `writing Secret ${credsSecret.name}`, {
    distributed: reach.condition,
    sign: [plan.step],
    creds: {
      secret: credsSecret.name,
      key: credsSecret.key,
      userKey: userKey ? { kind: "held", publicKey: userKey } : { kind: "generate" },
      ...(version ? { resourceVersion: version } : {}),
    },
  });
}
