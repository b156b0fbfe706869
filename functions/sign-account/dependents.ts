// What depends on an object just reconciled, reconciled after it in the same delivery: an echo of
// a status write is dropped by the runtime, so a change reaches the objects that read it only
// this way. An operator's JWTs go to its trusts and its key signs its accounts; a system account's
// key goes into its operator's JWTs; an account's keys sign its users, and a user's given-up keys
// are revoked by its account.
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import { KINDS } from "../../shared/api/kinds.ts";
import { hasFinalizer } from "../../shared/kube/finalizers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { offersStepdown, stepdownImportsOf } from "./operator/stepdown-imports.ts";
import {
  keyOfSubject,
  namespaceOf,
  type NatsAccount,
  type NatsOperator,
  type NatsAccountTrust,
  type NatsOperatorTrust,
  type NatsSystemAccount,
  type NatsUser,
  type Subject,
} from "./objects.ts";

const refersTo = (
  ref: { name: string; namespace?: string } | undefined,
  from: NatsUser | NatsAccount | NatsOperatorTrust | NatsAccountTrust,
  to: Subject,
) => ref !== undefined && ref.name === to.name && namespaceOf(ref, from) === to.namespace;

const asSubject = (kind: Subject["kind"], o: { metadata: { namespace: string; name: string } }): Subject => ({
  kind,
  namespace: o.metadata.namespace,
  name: o.metadata.name,
});

/** The accounts importing from `exporter` (a NatsAccount, or the system account for its monitoring exports). */
export const importersOf = (accounts: NatsAccount[], exporter: Subject): NatsAccount[] =>
  accounts.filter((a) =>
    (a.spec.imports ?? []).some((i) => i.accountRef?.kind === exporter.kind && refersTo(i.accountRef, a, exporter)),
  );

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

/** An object to reconcile after another; `again` when it was reconciled in this delivery already. */
export type Dependent = Subject & { again?: boolean };

export async function dependentsOf(kube: Kube, subject: Subject): Promise<Dependent[]> {
  switch (subject.kind) {
    case "NatsOperator": {
      const [trusts, accounts] = await Promise.all([
        kube.list<NatsOperatorTrust>({ apiVersion: KINDS.NatsOperatorTrust.apiVersion, kind: "NatsOperatorTrust" }),
        kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
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
              asSubject("NatsSystemAccount", {
                metadata: { namespace: namespaceOf(systemRef, operator), name: systemRef.name },
              }),
            ]
          : []),
        ...trusts.filter((t) => refersTo(t.spec.operatorRef, t, subject)).map((t) => asSubject("NatsOperatorTrust", t)),
        ...accounts.filter((a) => refersTo(a.spec.operatorRef, a, subject)).map((a) => asSubject("NatsAccount", a)),
      ];
    }
    case "NatsSystemAccount":
    case "NatsAccount": {
      const users = await kube.list<NatsUser>({ apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" });
      const own = users
        .filter((u) => u.spec.accountRef.kind === subject.kind && refersTo(u.spec.accountRef, u, subject))
        .map((u) => asSubject("NatsUser", u));
      if (subject.kind === "NatsAccount") {
        // Its key and JWT are mirrored into the reference-form NatsAccountTrusts naming it, and
        // its key, exports and signing key go into its importers' JWTs and activation tokens.
        const [trusts, accounts] = await Promise.all([
          kube.list<NatsAccountTrust>({ apiVersion: KINDS.NatsAccountTrust.apiVersion, kind: "NatsAccountTrust" }),
          kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
        ]);
        return [
          ...own,
          ...trusts.filter((t) => refersTo(t.spec.accountRef, t, subject)).map((t) => asSubject("NatsAccountTrust", t)),
          ...importersOf(accounts, subject).map((a) => asSubject("NatsAccount", a)),
          ...(await operatorToRefresh(kube, accounts, subject)),
        ];
      }
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
      // Accounts importing its monitoring exports name its key.
      const accounts = await kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" });
      return [...operator, ...own, ...importersOf(accounts, subject).map((a) => asSubject("NatsAccount", a))];
    }
    case "NatsUser": {
      // A user giving up a key (deleted, or holding a new one) is revoked by its account: the
      // account is signed next, and the user looked at again to see the revocation it waits for.
      const user = await kube.get<NatsUser>({
        apiVersion: KINDS.NatsUser.apiVersion,
        kind: "NatsUser",
        namespace: subject.namespace,
        name: subject.name,
      });
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
    case "NatsOperatorTrust":
    case "NatsAccountTrust":
      return [];
  }
}
