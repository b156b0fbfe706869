// A NatsUser's decision (pure): its account, its key (held in its creds Secret, generated, or its
// own publicKey), and its JWT signed by the account's active signing key into the creds Secret or,
// for a user with publicKey, into status.jwt.
import { FINALIZERS, type NatsUserStatus } from "../../../shared/api/index.ts";
import { type ConditionUpdate, hasFinalizer } from "../../../shared/kube/index.ts";
import { userClaims } from "../jwt/claims.ts";
import {
  noSystemConnection,
  notReady,
  ready,
  referencesResolved,
  referencesUnresolved,
  settle,
  type Refusal,
} from "../conditions.ts";
import type { CredsWrite, SignStep, UserDecision } from "../decision.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import { namespaceOf, roleOf, type NatsUser } from "../objects.ts";
import { credsSecretOf } from "./creds.ts";
import type { UserObserved } from "./types.ts";
import { decideUserDeletion } from "./deletion.ts";
import { revokes, secondsOf, timeOf } from "../account/revocations.ts";
import { roleSigner, roleUserClaims } from "../keys/scoped-keys.ts";
import { planJwt } from "../jwt/plan-jwt.ts";

const older = (a: NatsUser, b: NatsUser): boolean =>
  (a.metadata.creationTimestamp ?? "") < (b.metadata.creationTimestamp ?? "") ||
  ((a.metadata.creationTimestamp ?? "") === (b.metadata.creationTimestamp ?? "") && a.metadata.name < b.metadata.name);

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
    extra: { sign?: SignStep[]; creds?: CredsWrite } = {},
  ): UserDecision => {
    // A signed user carries the revoke finalizer: deleting it revokes its key first (in its
    // NatsAccount's JWT, or in its NatsSystemAccount's, which the NatsOperator signs).
    const revocable = updates.some((u) => u.type === "Ready" && u.status === "True");
    return {
      kind: "NatsUser",
      object: user,
      generate: [],
      ...settle(previous, status, [...updates, noSystemConnection()], user.metadata.generation, now),
      sign: extra.sign ?? [],
      ...(extra.creds ? { creds: extra.creds } : {}),
      ...(revocable && !hasFinalizer(user, FINALIZERS.userRevoke) ? { finalizer: "add" as const } : {}),
      schedules: [],
      summary: `${what}: ${summary}`,
    };
  };
  const refuse = (refusal: Refusal, unresolved?: ConditionUpdate) =>
    finish(previous, [notReady(refusal), unresolved ?? referencesResolved()], `${refusal.reason}: ${refusal.message}`);

  if (!observed.admitted) {
    const message =
      `no NatsReferenceGrant in namespace ${accountNamespace} admits NatsUser from namespace ` +
      `${user.metadata.namespace} to ${ref.kind} ${ref.name}`;
    return refuse({ reason: "ReferenceNotPermitted", message }, referencesUnresolved("NoGrant", message));
  }
  const account = observed.account;
  if (!account) {
    const message = `${accountName} does not exist`;
    return refuse({ reason: "ReferenceNotFound", message }, referencesUnresolved("ReferenceNotFound", message));
  }
  const accountReady = account.object.status?.conditions?.find((c) => c.type === "Ready");
  if (accountReady?.reason === "ReferenceNotPermitted")
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
    const holder = observed.siblings.find((s) => s.status?.publicKey === ownKey && older(s, user));
    if (holder)
      return refuse({
        reason: "PublicKeyInUse",
        message: `user key ${ownKey} is already held by NatsUser ${holder.metadata.namespace}/${holder.metadata.name}`,
      });
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
  const readyNow = [
    ready(`signed by ${accountName} with signing key ${signer}${role ? ` (scoped, role ${role})` : ""}`),
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
    });
  }
  const { jwt: _jwt, ...withoutJwt } = withReplaced(userKey);
  const plan = userKey ? planJwt(held?.jwt, request, "creds", now) : { step: { request, into: "creds" as const } };
  const status = { ...withoutJwt, ...(userKey ? { publicKey: userKey } : {}) };
  if (!plan.step) return finish(status, readyNow, "signed, unchanged");
  const version = observed.creds.kind !== "none" ? observed.creds.resourceVersion : undefined;
  return finish(status, readyNow, `writing Secret ${credsSecret.name}`, {
    sign: [plan.step],
    creds: {
      secret: credsSecret.name,
      key: credsSecret.key,
      userKey: userKey ? { kind: "held", publicKey: userKey } : { kind: "generate" },
      ...(version ? { resourceVersion: version } : {}),
    },
  });
}
