// The NatsAccount reconciler: admission, keys, JWT, distribution, deletion and withdrawal. Its keys
// sign its users, its key and JWT are mirrored into the reference-form NatsAccountTrusts naming it,
// its key, exports and signing key go into its importers' JWTs and tokens, and its operator's
// system account JWT may have to say (again) whether it offers the stepdown services: all of them
// are reconciled after it; its users and importers only when what they read of it changed
// (user-view.ts, wiring/importers.ts).
import { KINDS } from "../../../shared/api/index.ts";
import type { Kube } from "../../../shared/kube/index.ts";
import { authReconciler, type ViewChanges } from "../auth-reconciler.ts";
import { accountTrustsOf, usersOfAccount } from "../listings.ts";
import {
  keyOfSubject,
  namespaceOf,
  subjectOf,
  type Dependent,
  type NatsAccount,
  type NatsOperator,
  type Subject,
} from "../objects.ts";
import { offersStepdown, stepdownImportsOf } from "../operator/stepdown-imports.ts";
import { grantsInto, secretsOf } from "../related.ts";
import { importerView, importersOf } from "../wiring/importers.ts";
import { decideAccount } from "./decide.ts";
import { observeAccount } from "./observe.ts";
import { userView } from "./user-view.ts";

/**
 * The account's operator, when its system account JWT does not yet say whether the account offers
 * the jetstream-stepdown services (the preset added or removed, the account keyed or withdrawn),
 * or when it reads RetiringKeysInUse: the account may just have been re-signed by another key.
 */
async function operatorToRefresh(kube: Kube, account: NatsAccount | undefined): Promise<Dependent[]> {
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

/**
 * The objects that read the account: its users and its importers only when what they read of it
 * changed (user-view.ts, wiring/importers.ts), its trusts (which mirror its JWT) always, each
 * found by field selector where one reaches them (listings.ts).
 */
async function accountDependents(
  kube: Kube,
  subject: Subject,
  changed: ViewChanges,
  current?: NatsAccount,
): Promise<Dependent[]> {
  const [users, trusts, accounts] = await Promise.all([
    changed.users ? usersOfAccount(kube, subject) : Promise.resolve([]),
    accountTrustsOf(kube, subject),
    changed.importers
      ? kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" })
      : Promise.resolve([]),
  ]);
  const account = current ?? (await kube.get<NatsAccount>(keyOfSubject(subject)));
  return [
    ...users.map((u) => subjectOf("NatsUser", u)),
    ...trusts.map((t) => subjectOf("NatsAccountTrust", t)),
    ...importersOf(accounts, subject).map((a) => subjectOf("NatsAccount", a)),
    ...(await operatorToRefresh(kube, account)),
  ];
}

export const accountReconciler = authReconciler({
  kind: "NatsAccount",
  related: [secretsOf("NatsAccount"), grantsInto("NatsAccount")],
  observe: observeAccount,
  decide: decideAccount,
  viewOf: userView,
  importerViewOf: importerView,
  dependents: accountDependents,
});
