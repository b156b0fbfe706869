// The NatsAccount reconciler: admission, keys, JWT, distribution, deletion and withdrawal. Its keys
// sign its users, its key and JWT are mirrored into the reference-form NatsAccountTrusts naming it,
// its key, exports and signing key go into its importers' JWTs and tokens, and its operator's
// system account JWT may have to say (again) whether it offers the stepdown services: all of them
// are reconciled after it; its users only when what they read of it changed (user-view.ts).
import { KINDS } from "../../../shared/api/index.ts";
import type { Kube } from "../../../shared/kube/index.ts";
import { authReconciler } from "../auth-reconciler.ts";
import {
  keyOfSubject,
  namespaceOf,
  refersTo,
  subjectOf,
  type Dependent,
  type NatsAccount,
  type NatsAccountTrust,
  type NatsOperator,
  type NatsUser,
  type Subject,
} from "../objects.ts";
import { offersStepdown, stepdownImportsOf } from "../operator/stepdown-imports.ts";
import { grantsInto, secretsOf } from "../related.ts";
import { importersOf } from "../wiring/importers.ts";
import { decideAccount } from "./decide.ts";
import { observeAccount } from "./observe.ts";
import { userView } from "./user-view.ts";

/**
 * The account's operator, when its system account JWT does not yet say whether the account offers
 * the jetstream-stepdown services (the preset added or removed, the account keyed or withdrawn),
 * or when it reads RetiringKeysInUse: the account may just have been re-signed by another key.
 */
async function operatorToRefresh(kube: Kube, accounts: NatsAccount[], subject: Subject): Promise<Dependent[]> {
  const account = accounts.find((a) => a.metadata.namespace === subject.namespace && a.metadata.name === subject.name);
  const key = account?.status?.publicKey;
  if (!account || !key) return [];
  const ref = account.spec.operatorRef;
  const operator: Subject = { kind: "NatsOperator", namespace: namespaceOf(ref, account), name: ref.name };
  const read = await kube.get<NatsOperator>(keyOfSubject(operator));
  const imported = stepdownImportsOf(read?.status?.systemAccount?.jwt).includes(key);
  if (read && imported !== offersStepdown(account)) return [operator];
  const retiring = read?.status?.conditions?.find((c) => c.type === "RetiringKeysInUse");
  return retiring?.status === "True" ? [{ ...operator, again: true }] : [];
}

/** The account's users: reconciled only when what they read of it (user-view.ts) changed. */
async function usersOf(kube: Kube, subject: Subject, viewChanged: boolean): Promise<Dependent[]> {
  if (!viewChanged) return [];
  const users = await kube.list<NatsUser>({ apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" });
  return users
    .filter((u) => u.spec.accountRef.kind === subject.kind && refersTo(u.spec.accountRef, u, subject))
    .map((u) => subjectOf("NatsUser", u));
}

async function accountDependents(kube: Kube, subject: Subject, viewChanged: boolean): Promise<Dependent[]> {
  const own = await usersOf(kube, subject, viewChanged);
  const [trusts, accounts] = await Promise.all([
    kube.list<NatsAccountTrust>({ apiVersion: KINDS.NatsAccountTrust.apiVersion, kind: "NatsAccountTrust" }),
    kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
  ]);
  return [
    ...own,
    ...trusts.filter((t) => refersTo(t.spec.accountRef, t, subject)).map((t) => subjectOf("NatsAccountTrust", t)),
    ...importersOf(accounts, subject).map((a) => subjectOf("NatsAccount", a)),
    ...(await operatorToRefresh(kube, accounts, subject)),
  ];
}

export const accountReconciler = authReconciler({
  kind: "NatsAccount",
  related: [secretsOf("NatsAccount"), grantsInto("NatsAccount")],
  observe: observeAccount,
  decide: decideAccount,
  viewOf: userView,
  dependents: accountDependents,
});
