// A NatsAccount that was admitted to its NatsOperator and no longer is (its NatsReferenceGrant was
// deleted), decided (pure): its JWT leaves every server by the delete protocol of a deleted account
// (a request signed by the operator, the key listed in the operator's status.deletedAccounts),
// status.jwt is emptied at once, and status.publicKey goes once no server holds the JWT. It reads
// Ready=False ReferenceNotPermitted throughout, which its users read as AccountNotAdmitted. A grant
// made again admits it with the same keys (its seed Secrets outlive all this).
import { type NatsAccountStatus, AUTH_REASONS } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { noSystemConnection, notReady, referencesUnresolved, settle } from "../conditions.ts";
import type { AccountDecision, SignStep } from "../decision.ts";
import { deletionsPoll } from "../operator/deleted-accounts.ts";
import { decideDeletion, distributionPoll, expiresAt } from "../servers/distribution.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import { namespaceOf } from "../objects.ts";
import type { AccountObserved } from "./types.ts";
import { renewalTick } from "./renewal.ts";

const withdrawn = (message: string): ConditionUpdate => ({
  type: "Distributed",
  status: "False",
  reason: AUTH_REASONS.Withdrawn,
  message,
});

/** The refusal of an account no grant admits to its operator, as Ready and ReferencesResolved say it. */
export function notAdmitted(observed: AccountObserved): { message: string; updates: ConditionUpdate[] } {
  const account = observed.object;
  const ref = account.spec.operatorRef;
  const message =
    `no NatsReferenceGrant in namespace ${namespaceOf(ref, account)} admits NatsAccount ` +
    `${account.metadata.namespace}/${account.metadata.name} to NatsOperator ${ref.name}`;
  return {
    message,
    updates: [notReady({ reason: "ReferenceNotPermitted", message }), referencesUnresolved("NoGrant", message)],
  };
}

/** The Distributed condition of an account whose withdrawal was confirmed, if it reads so. */
export function withdrawnCondition(status: NatsAccountStatus | undefined): ConditionUpdate | undefined {
  const found = status?.conditions?.find((c) => c.type === "Distributed" && c.reason === AUTH_REASONS.Withdrawn);
  return found
    ? { type: found.type, status: found.status, reason: AUTH_REASONS.Withdrawn, message: found.message }
    : undefined;
}

/** An account that recorded a key (it was admitted) and lost its admission, or whose withdrawal is done. */
export function decideWithdrawal(observed: AccountObserved, now: Date): AccountDecision {
  const account = observed.object;
  const what = `NatsAccount ${account.metadata.namespace}/${account.metadata.name}`;
  const previous = account.status ?? {};
  // Its JWT, what was resolved for it and the tokens it published go with its admission.
  const {
    publicKey: key,
    jwt,
    jwtHash: _hash,
    jwtExpires: _expires,
    imports: _imports,
    exports: _exports,
    ...unkeyed
  } = previous;
  const refusal = notAdmitted(observed);
  const base = { kind: "NatsAccount" as const, object: account, sign: [] as SignStep[], generate: [] };
  const off = observed.distribution.kind === "off";
  const decided = (
    status: NatsAccountStatus,
    distributed: ConditionUpdate,
    summary: string,
    polling: boolean,
  ): AccountDecision => ({
    ...base,
    ...settle(previous, status, [...refusal.updates, distributed], account.metadata.generation, now),
    schedules: [renewalTick(account, undefined), ...(off ? [] : [distributionPoll(account, !polling)])],
    summary: `${what}: ReferenceNotPermitted, ${summary}`,
  });
  // Done before (no key left): it stays so, whatever else this delivery reads.
  const done = withdrawnCondition(previous);
  if (!key && done) return decided(unkeyed, done, done.message, false);
  const operator = observed.operator;
  if (off) return decided(unkeyed, noSystemConnection(), "JWT emptied (no system connection)", false);
  const ref = account.spec.operatorRef;
  const signer = operator
    ? judgeKeys(
        `NatsOperator ${namespaceOf(ref, account)}/${ref.name}`,
        "operator",
        operator.keys,
        operator.object.status?.publicKey,
        operator.object.status?.publicKey,
      )
    : undefined;
  if (!operator || signer?.kind !== "ready" || !key) {
    const message =
      "its NatsOperator or a usable operator signing key is gone: nothing deletes its JWT from the servers";
    return decided(unkeyed, withdrawn(message), message, false);
  }
  const verdict = decideDeletion(observed.distribution, previous.distribution);
  const distribution = verdict.distribution ?? previous.distribution;
  if (verdict.confirmed) {
    const { current: _current, ...rest } = distribution ?? {};
    const message = `no server holds its JWT: ${refusal.message}`;
    return decided({ ...unkeyed, ...(distribution ? { distribution: rest } : {}) }, withdrawn(message), message, false);
  }
  const recorded = operator.object.status?.deletedAccounts?.some((d) => d.publicKey === key) ?? false;
  const expires = jwt ? expiresAt(jwt) : undefined;
  // The key stays until the delete is confirmed: it is what the servers are asked about.
  const deleting: NatsAccountStatus = { ...unkeyed, publicKey: key, ...(distribution ? { distribution } : {}) };
  const condition = verdict.condition ?? withdrawn("deleting its JWT from the servers");
  const decision = decided(deleting, condition, condition.message, true);
  return {
    ...decision,
    ...(verdict.send ? { deleteRequest: { signer: signer.active, accounts: [key] } } : {}),
    ...(verdict.send && !recorded
      ? {
          recordDeleted: {
            operator: { namespace: operator.object.metadata.namespace, name: operator.object.metadata.name },
            publicKey: key,
            ...(expires ? { expires } : {}),
          },
        }
      : {}),
    // The operator watches its deleted accounts, for a server that rejoins holding this one.
    schedules: [...decision.schedules, deletionsPoll(operator.object, true)],
    summary: `${decision.summary}${verdict.send ? ", sending the delete" : ""}`,
  };
}
