// The auth objects a NatsReferenceGrant in a namespace may admit: every reference into that
// namespace from another one (an account's operator or exporter, a user's account, a trust's
// operator or account). A grant made, changed or deleted is judged again by each of them, since a
// grant has no status and nothing else tells them.
import { KINDS } from "../../shared/api/kinds.ts";
import type { Kube } from "../../shared/kube/client.ts";
import {
  namespaceOf,
  type NatsAccount,
  type NatsAccountTrust,
  type NatsOperatorTrust,
  type NatsUser,
  type Subject,
  type SubjectKind,
} from "./objects.ts";

type Referrer = { kind: string; metadata: { namespace: string; name: string } };

const intoOther = (namespace: string, from: Referrer, ref: { namespace?: string } | undefined) =>
  ref !== undefined && from.metadata.namespace !== namespace && namespaceOf(ref, from) === namespace;

const subjectOf = (kind: SubjectKind, o: Referrer): Subject => ({
  kind,
  namespace: o.metadata.namespace,
  name: o.metadata.name,
});

export async function referrersInto(kube: Kube, namespace: string): Promise<Subject[]> {
  const [accounts, users, operatorTrusts, accountTrusts] = await Promise.all([
    kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
    kube.list<NatsUser>({ apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" }),
    kube.list<NatsOperatorTrust>({ apiVersion: KINDS.NatsOperatorTrust.apiVersion, kind: "NatsOperatorTrust" }),
    kube.list<NatsAccountTrust>({ apiVersion: KINDS.NatsAccountTrust.apiVersion, kind: "NatsAccountTrust" }),
  ]);
  return [
    ...accounts
      .filter(
        (a) =>
          intoOther(namespace, a, a.spec.operatorRef) ||
          (a.spec.imports ?? []).some((i) => intoOther(namespace, a, i.accountRef)),
      )
      .map((a) => subjectOf("NatsAccount", a)),
    ...users.filter((u) => intoOther(namespace, u, u.spec.accountRef)).map((u) => subjectOf("NatsUser", u)),
    ...operatorTrusts
      .filter((t) => intoOther(namespace, t, t.spec.operatorRef))
      .map((t) => subjectOf("NatsOperatorTrust", t)),
    ...accountTrusts
      .filter((t) => intoOther(namespace, t, t.spec.accountRef))
      .map((t) => subjectOf("NatsAccountTrust", t)),
  ];
}
