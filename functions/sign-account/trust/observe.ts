// What a reference-form trust reconcile reads (reads only): whether the namespace of the operator or
// account it names admits it, and that object. A literal trust reads nothing more.
import type { ObserveContext, Read } from "../auth-reconciler.ts";
import { Keyring } from "../keys/keyring.ts";
import {
  namespaceOf,
  type NatsAccount,
  type NatsAccountTrust,
  type NatsOperator,
  type NatsOperatorTrust,
} from "../objects.ts";
import { admits, readRef } from "../references.ts";
import type { AccountTrustObserved, TrustObserved } from "./types.ts";

export async function observeOperatorTrust(
  object: NatsOperatorTrust,
  { kube }: ObserveContext,
): Promise<Read<TrustObserved>> {
  const ref = object.spec.operatorRef;
  if (!ref) return { observed: { kind: "NatsOperatorTrust", object, admitted: true }, keyring: new Keyring() };
  const namespace = namespaceOf(ref, object);
  const admitted = await admits(kube, object, "NatsOperator", namespace, ref.name);
  const operator = admitted ? await readRef<NatsOperator>(kube, "NatsOperator", namespace, ref.name) : undefined;
  return {
    observed: { kind: "NatsOperatorTrust", object, admitted, ...(operator ? { operator } : {}) },
    keyring: new Keyring(),
  };
}

export async function observeAccountTrust(
  object: NatsAccountTrust,
  { kube }: ObserveContext,
): Promise<Read<AccountTrustObserved>> {
  const ref = object.spec.accountRef;
  if (!ref) return { observed: { kind: "NatsAccountTrust", object, admitted: true }, keyring: new Keyring() };
  const namespace = namespaceOf(ref, object);
  const admitted = await admits(kube, object, "NatsAccount", namespace, ref.name);
  const account = admitted ? await readRef<NatsAccount>(kube, "NatsAccount", namespace, ref.name) : undefined;
  return {
    observed: { kind: "NatsAccountTrust", object, admitted, ...(account ? { account } : {}) },
    keyring: new Keyring(),
  };
}
