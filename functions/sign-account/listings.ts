// The objects that concern one auth object, asked of the API server by field selector on the
// CRDs' selectable fields (shared/api/selectable-fields.ts) rather than listed across the cluster
// and filtered here: a reconcile then reads what concerns it whatever the size of the
// installation (signing N accounts no longer reads N² accounts and every user N times). The
// selectors narrow by name, which a reference shares with same-named objects of other namespaces;
// the namespace a reference defaults to is checked here, as before.
import { fieldsEqual, KINDS, type SelectableField } from "../../shared/api/index.ts";
import type { Kube } from "../../shared/kube/index.ts";
import type { ClaimKind } from "./keys/key-claims.ts";
import type { SeedsToRead } from "./keys/read-holdings.ts";
import {
  refersTo,
  sameOperator,
  type NatsAccount,
  type NatsAccountTrust,
  type NatsOperatorTrust,
  type NatsUser,
  type Subject,
} from "./objects.ts";

const accounts = (
  kube: Kube,
  terms: Partial<Record<SelectableField<"NatsAccount">, string>>,
  present: SelectableField<"NatsAccount">[] = [],
) =>
  kube.list<NatsAccount>({
    apiVersion: KINDS.NatsAccount.apiVersion,
    kind: "NatsAccount",
    fieldSelector: fieldsEqual("NatsAccount", terms, present),
  });

const users = (kube: Kube, terms: Partial<Record<SelectableField<"NatsUser">, string>>) =>
  kube.list<NatsUser>({
    apiVersion: KINDS.NatsUser.apiVersion,
    kind: "NatsUser",
    fieldSelector: fieldsEqual("NatsUser", terms),
  });

/** The listings' objects, each once (by uid), in the order first listed. */
function union<T extends { metadata: { uid?: string; namespace: string; name: string } }>(lists: T[][]): T[] {
  const seen = new Set<string>();
  return lists.flat().filter((o) => {
    const id = o.metadata.uid ?? `${o.metadata.namespace}/${o.metadata.name}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The NatsAccounts under the operator `namespace/name`. */
export async function accountsUnder(kube: Kube, namespace: string, name: string): Promise<NatsAccount[]> {
  const listed = await accounts(kube, { "spec.operatorRef.name": name });
  return listed.filter((a) => sameOperator(a, namespace, name));
}

/**
 * The NatsAccounts under the operator `namespace/name` whose claim on `key` can outrank a claim of
 * kind `mine` (keys/key-claims.ts): those that record it in status, always; those that name it
 * in spec, against a claim in spec only; and the accounts that recorded no key yet whose seed
 * Secret may hold it, as `seeds` says (keys/read-holdings.ts): every one, or only those whose
 * identity seed is in a Secret they name. An account claiming another key, or claiming this one
 * more weakly, cannot take it, so is not read.
 */
export async function accountsClaiming(
  kube: Kube,
  operator: { namespace: string; name: string },
  key: string,
  mine: ClaimKind,
  seeds: SeedsToRead,
): Promise<NatsAccount[]> {
  const under = { "spec.operatorRef.name": operator.name };
  const unrecorded = { ...under, "status.publicKey": "" };
  const listed = await Promise.all([
    accounts(kube, { ...under, "status.publicKey": key }),
    mine === "spec" ? accounts(kube, { ...under, "spec.publicKey": key }) : Promise.resolve([]),
    seeds === "all"
      ? accounts(kube, unrecorded)
      : seeds === "adopted"
        ? accounts(kube, unrecorded, ["spec.keys.identity.secretKeyRef.name"])
        : Promise.resolve([]),
  ]);
  return union(listed).filter((a) => sameOperator(a, operator.namespace, operator.name));
}

/** The NatsUsers of the account (or system account) `subject`. */
export async function usersOfAccount(kube: Kube, subject: Subject): Promise<NatsUser[]> {
  const listed = await users(kube, { "spec.accountRef.name": subject.name });
  return listed.filter((u) => u.spec.accountRef.kind === subject.kind && refersTo(u.spec.accountRef, u, subject));
}

/**
 * The NatsUsers of the account `subject` that record `key` in status or name it in spec: the only
 * ones whose claim on it a user naming it in spec.publicKey can lose to.
 */
export async function usersClaiming(kube: Kube, subject: Subject, key: string): Promise<NatsUser[]> {
  const of = { "spec.accountRef.name": subject.name };
  const listed = await Promise.all([
    users(kube, { ...of, "status.publicKey": key }),
    users(kube, { ...of, "spec.publicKey": key }),
  ]);
  return union(listed).filter(
    (u) => u.spec.accountRef.kind === subject.kind && refersTo(u.spec.accountRef, u, subject),
  );
}

/** The reference-form NatsAccountTrusts mirroring the account `subject`. */
export async function accountTrustsOf(kube: Kube, subject: Subject): Promise<NatsAccountTrust[]> {
  const listed = await kube.list<NatsAccountTrust>({
    apiVersion: KINDS.NatsAccountTrust.apiVersion,
    kind: "NatsAccountTrust",
    fieldSelector: fieldsEqual("NatsAccountTrust", { "spec.accountRef.name": subject.name }),
  });
  return listed.filter((t) => refersTo(t.spec.accountRef, t, subject));
}

/** The reference-form NatsOperatorTrusts mirroring the operator `subject`. */
export async function operatorTrustsOf(kube: Kube, subject: Subject): Promise<NatsOperatorTrust[]> {
  const listed = await kube.list<NatsOperatorTrust>({
    apiVersion: KINDS.NatsOperatorTrust.apiVersion,
    kind: "NatsOperatorTrust",
    fieldSelector: fieldsEqual("NatsOperatorTrust", { "spec.operatorRef.name": subject.name }),
  });
  return listed.filter((t) => refersTo(t.spec.operatorRef, t, subject));
}
