// The NatsUser reconciler: its creds (or JWT), its given-up keys, its drain when deleted. A user
// giving up a key (deleted, or holding a new one) is revoked by its account: the account is
// reconciled next, and the user looked at once more (`again`) to see the revocation it waits for.
import { FINALIZERS, KINDS } from "../../../shared/api/index.ts";
import { hasFinalizer, type Kube } from "../../../shared/kube/index.ts";
import { authReconciler, type ViewChanges } from "../auth-reconciler.ts";
import {
  keyOfSubject,
  namespaceOf,
  type Dependent,
  type NatsSystemAccount,
  type NatsUser,
  type Subject,
} from "../objects.ts";
import { grantsInto, secretsOf } from "../related.ts";
import { decideUser } from "./decide.ts";
import { observeUser } from "./observe.ts";

async function userDependents(
  kube: Kube,
  subject: Subject,
  _changed: ViewChanges,
  current?: NatsUser,
): Promise<Dependent[]> {
  // As its reconcile left it, or read again.
  const user =
    current ??
    (await kube.get<NatsUser>({
      apiVersion: KINDS.NatsUser.apiVersion,
      kind: "NatsUser",
      namespace: subject.namespace,
      name: subject.name,
    }));
  const ref = user?.spec.accountRef;
  if (!user || !ref) return [];
  const revoking =
    (user.metadata.deletionTimestamp !== undefined && hasFinalizer(user, FINALIZERS.userRevoke)) ||
    (user.status?.replacedKeys?.length ?? 0) > 0;
  if (!revoking) return [];
  const account: Subject = { kind: ref.kind, namespace: namespaceOf(ref, user), name: ref.name };
  if (ref.kind === "NatsAccount") return [account, { ...subject, again: true }];
  // A system account's JWT is signed by its operator; the system account then pushes it.
  const system = await kube.get<NatsSystemAccount>(keyOfSubject(account));
  const operatorRef = system?.spec.operatorRef;
  if (!system || !operatorRef) return [];
  const operator: Subject = {
    kind: "NatsOperator",
    namespace: namespaceOf(operatorRef, system),
    name: operatorRef.name,
  };
  return [operator, account, { ...subject, again: true }];
}

export const userReconciler = authReconciler({
  kind: "NatsUser",
  related: [secretsOf("NatsUser"), grantsInto("NatsUser")],
  observe: observeUser,
  decide: decideUser,
  dependents: userDependents,
});
