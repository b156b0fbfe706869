// The NatsOperator reconciler: its keys and JWTs, its system account's JWT, its deleted accounts'
// watch. Its system account, reference-form NatsOperatorTrusts and accounts read what it writes
// (its JWTs, its signing keys), so they are reconciled after it.
import { KINDS } from "../../../shared/api/index.ts";
import type { Kube } from "../../../shared/kube/index.ts";
import { authReconciler } from "../auth-reconciler.ts";
import { accountsUnder, operatorTrustsOf } from "../listings.ts";
import { namespaceOf, subjectOf, type Dependent, type NatsOperator, type Subject } from "../objects.ts";
import { secretsOf } from "../related.ts";
import { decideOperator } from "./decide.ts";
import { withDeletions } from "./deleted-accounts.ts";
import { observeOperator } from "./observe.ts";

async function operatorDependents(kube: Kube, subject: Subject): Promise<Dependent[]> {
  const [trusts, accounts] = await Promise.all([
    operatorTrustsOf(kube, subject),
    accountsUnder(kube, subject.namespace, subject.name),
  ]);
  const operator = await kube.get<NatsOperator>({
    apiVersion: KINDS.NatsOperator.apiVersion,
    kind: "NatsOperator",
    namespace: subject.namespace,
    name: subject.name,
  });
  const systemRef = operator?.spec.systemAccountRef;
  return [
    ...(operator && systemRef
      ? [
          subjectOf("NatsSystemAccount", {
            metadata: { namespace: namespaceOf(systemRef, operator), name: systemRef.name },
          }),
        ]
      : []),
    ...trusts.map((t) => subjectOf("NatsOperatorTrust", t)),
    ...accounts.map((a) => subjectOf("NatsAccount", a)),
  ];
}

export const operatorReconciler = authReconciler({
  kind: "NatsOperator",
  related: [secretsOf("NatsOperator")],
  observe: observeOperator,
  decide: (observed, now) => withDeletions(decideOperator(observed, now), observed),
  dependents: operatorDependents,
});
