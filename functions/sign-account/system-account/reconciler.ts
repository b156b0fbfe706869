// The NatsSystemAccount reconciler: its keys, and its JWT (signed by its operator) on the servers.
// Its operator signs its JWT with its key, its users are signed by its keys, and accounts importing
// its monitoring exports name its key: they are reconciled after it.
import { KINDS } from "../../../shared/api/index.ts";
import type { Kube } from "../../../shared/kube/index.ts";
import { authReconciler } from "../auth-reconciler.ts";
import { usersOfAccount } from "../listings.ts";
import { subjectOf, type Dependent, type NatsAccount, type NatsSystemAccount, type Subject } from "../objects.ts";
import { secretsOf } from "../related.ts";
import { importersOf } from "../wiring/importers.ts";
import { decideSystemAccount } from "./decide.ts";
import { observeSystemAccount } from "./observe.ts";

async function systemAccountDependents(kube: Kube, subject: Subject): Promise<Dependent[]> {
  const own = (await usersOfAccount(kube, subject)).map((u) => subjectOf("NatsUser", u));
  const system = await kube.get<NatsSystemAccount>({
    apiVersion: KINDS.NatsSystemAccount.apiVersion,
    kind: "NatsSystemAccount",
    namespace: subject.namespace,
    name: subject.name,
  });
  const ref = system?.spec.operatorRef;
  const operator: Subject[] = ref
    ? [{ kind: "NatsOperator", namespace: ref.namespace ?? subject.namespace, name: ref.name }]
    : [];
  const accounts = await kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" });
  return [...operator, ...own, ...importersOf(accounts, subject).map((a) => subjectOf("NatsAccount", a))];
}

export const systemAccountReconciler = authReconciler({
  kind: "NatsSystemAccount",
  related: [secretsOf("NatsSystemAccount")],
  observe: observeSystemAccount,
  decide: decideSystemAccount,
  dependents: systemAccountDependents,
});
