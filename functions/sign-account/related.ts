// What other changes lead to an auth object: a seed Secret to the object it was generated for (by
// its generated-for annotation, or by its name once it is gone), a creds Secret to its NatsUser
// (unless it holds just what sign-account wrote into it: the echo of that write), and
// a NatsReferenceGrant to every object referring into its namespace from another one (an account's
// operator or exporter, a user's account, a trust's operator or account): a grant has no status,
// so nothing else tells them it was made, changed or deleted.
import { CREDS_DIGEST_ANNOTATION, fieldsEqual, GENERATED_FOR_ANNOTATION, KINDS } from "../../shared/api/index.ts";
import type { Kube, KubeObject } from "../../shared/kube/index.ts";
import type { ObjectRef, Related, RelatedContext } from "../../shared/runtime/index.ts";
import {
  keyOfSubject,
  namespaceOf,
  type NatsAccount,
  type NatsAccountTrust,
  type NatsOperatorTrust,
  type NatsUser,
  type Subject,
  type SubjectKind,
  subjectOf,
} from "./objects.ts";
import { credsDigest } from "./user/creds.ts";

/** The object a Secret belongs to, or why it belongs to none. */
export type SecretOwner = { kind: "subject"; subject: Subject } | { kind: "none"; reason: string };

const ROLE_KINDS: Record<string, SubjectKind> = {
  operator: "NatsOperator",
  systemaccount: "NatsSystemAccount",
  account: "NatsAccount",
};

const none = (reason: string): SecretOwner => ({ kind: "none", reason });
const subject = (kind: SubjectKind, namespace: string, name: string): SecretOwner => ({
  kind: "subject",
  subject: { kind, namespace, name },
});

/** The object a Secret's name says it belongs to, for a Secret already gone. */
function fromSecretName(namespace: string, name: string): SecretOwner {
  const seed = /^(.+)-(operator|systemaccount|account)-(identity|signing-\d+)$/.exec(name);
  if (seed?.[1] && seed[2]) return subject(ROLE_KINDS[seed[2]] ?? "NatsAccount", namespace, seed[1]);
  const creds = /^(.+)-creds$/.exec(name);
  if (creds?.[1]) return subject("NatsUser", namespace, creds[1]);
  return none(`Secret ${name} is not one of sign-account's`);
}

export async function ownerOfSecret(kube: Kube, namespace: string, name: string): Promise<SecretOwner> {
  const secret = await kube.get<KubeObject & { data?: Record<string, string> }>({
    apiVersion: "v1",
    kind: "Secret",
    namespace,
    name,
  });
  if (!secret) return fromSecretName(namespace, name);
  const generatedFor = secret.metadata.annotations?.[GENERATED_FOR_ANNOTATION];
  const [role, owner] = generatedFor?.split("/") ?? [];
  const kind = role ? ROLE_KINDS[role] : undefined;
  if (kind && owner) return subject(kind, namespace, owner);
  const user = secret.metadata.ownerReferences?.find((o) => o.controller && o.kind === "NatsUser");
  // A creds Secret holding what sign-account wrote into it: the event is that write's echo (the
  // user's reconcile that wrote it goes on to its status); a change by anyone else reaches the user.
  const written = secret.metadata.annotations?.[CREDS_DIGEST_ANNOTATION];
  if (user && written !== undefined && written === credsDigest(secret.data))
    return none(`Secret ${name} holds the creds sign-account wrote for NatsUser ${namespace}/${user.name}`);
  if (user) return subject("NatsUser", namespace, user.name);
  return none(`Secret ${name} is neither a generated seed nor a creds Secret`);
}

type Referrer = { kind: string; metadata: { namespace: string; name: string } };

const intoOther = (namespace: string, from: Referrer, ref: { namespace?: string } | undefined) =>
  ref !== undefined && from.metadata.namespace !== namespace && namespaceOf(ref, from) === namespace;

export async function referrersInto(kube: Kube, namespace: string): Promise<Subject[]> {
  const [accounts, users, operatorTrusts, accountTrusts] = await Promise.all([
    kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
    // A user refers into another namespace only by naming it: the rest are not listed.
    kube.list<NatsUser>({
      apiVersion: KINDS.NatsUser.apiVersion,
      kind: "NatsUser",
      fieldSelector: fieldsEqual("NatsUser", { "spec.accountRef.namespace": namespace }),
    }),
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

const SECRET = { apiVersion: "v1", kind: "Secret" };
const GRANT = { apiVersion: KINDS.NatsReferenceGrant.apiVersion, kind: "NatsReferenceGrant" };

/** A Secret's change leads to its owner, when that is of `kind` (the Secret is read once per delivery). */
export const secretsOf = (kind: SubjectKind): Related => ({
  kind: SECRET,
  async map(ref: ObjectRef, { kube, delivery }: RelatedContext) {
    const owner = await delivery.once(`sign-account owner of Secret ${ref.namespace}/${ref.name}`, () =>
      ownerOfSecret(kube, ref.namespace, ref.name),
    );
    return owner.kind === "subject" && owner.subject.kind === kind ? [keyOfSubject(owner.subject)] : [];
  },
});

/** A grant's change leads to the objects of `kind` referring into its namespace (listed once per delivery). */
export const grantsInto = (kind: SubjectKind): Related => ({
  kind: GRANT,
  async map(ref: ObjectRef, { kube, delivery }: RelatedContext) {
    const referrers = await delivery.once(`sign-account referrers into ${ref.namespace}`, () =>
      referrersInto(kube, ref.namespace),
    );
    return referrers.filter((s) => s.kind === kind).map(keyOfSubject);
  },
});
