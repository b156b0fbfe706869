// The objects sign-account reconciles, typed from the API schemas, and how they are addressed.
import {
  KINDS,
  type NatsAccount as AccountResource,
  type NatsAccountTrust as AccountTrustResource,
  type NatsOperator as OperatorResource,
  type NatsOperatorTrust as OperatorTrustResource,
  type NatsSystemAccount as SystemAccountResource,
  type NatsUser as UserResource,
} from "../../shared/api/index.ts";
import type { KubeObject, ObjectKey, ObjectMeta } from "../../shared/kube/index.ts";

/** An object as read from the API server: its name and namespace are always set. */
type Read<T extends { metadata: unknown }> = Omit<T, "metadata"> &
  KubeObject & { metadata: ObjectMeta & { name: string; namespace: string } };

export type NatsOperator = Read<OperatorResource>;
export type NatsSystemAccount = Read<SystemAccountResource>;
export type NatsAccount = Read<AccountResource>;
export type NatsUser = Read<UserResource>;
export type NatsOperatorTrust = Read<OperatorTrustResource>;
export type NatsAccountTrust = Read<AccountTrustResource>;

/** The kinds one reconcile is about. */
export const SUBJECT_KINDS = [
  "NatsOperator",
  "NatsSystemAccount",
  "NatsAccount",
  "NatsUser",
  "NatsOperatorTrust",
  "NatsAccountTrust",
] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export const isSubjectKind = (kind: string): kind is SubjectKind => (SUBJECT_KINDS as readonly string[]).includes(kind);

/** One object to reconcile. */
export interface Subject {
  kind: SubjectKind;
  namespace: string;
  name: string;
}

export const keyOfSubject = (subject: Subject): ObjectKey => ({
  apiVersion: KINDS[subject.kind].apiVersion,
  kind: subject.kind,
  namespace: subject.namespace,
  name: subject.name,
});

export const describeSubject = (subject: Subject): string => `${subject.kind} ${subject.namespace}/${subject.name}`;

/** Objects that hold an identity and signing keys. */
export type KeyHolder = NatsOperator | NatsSystemAccount | NatsAccount;

/** How seed Secrets of a key holder are named: `<name>-<role>-identity`. */
export type KeyRole = "operator" | "systemaccount" | "account";

export const roleOf = (kind: KeyHolder["kind"]): KeyRole =>
  kind === "NatsOperator" ? "operator" : kind === "NatsSystemAccount" ? "systemaccount" : "account";

/** The nkey prefix of a role's public keys: O for operators, A for accounts. */
export const prefixOf = (role: KeyRole): "O" | "A" => (role === "operator" ? "O" : "A");

/** A reference's namespace, defaulting to the referring object's. */
export const namespaceOf = (ref: { namespace?: string }, from: { metadata: { namespace?: string } }): string =>
  ref.namespace ?? from.metadata.namespace ?? "";

/** Narrows an object read from the API server; undefined when it lacks a name or namespace. */
export function asRead<T extends KubeObject>(object: KubeObject | undefined): T | undefined {
  if (!object?.metadata.name || !object.metadata.namespace) return undefined;
  return object as T;
}

/** An object to reconcile after another; `again` when it may have been reconciled in this delivery already. */
export type Dependent = Subject & { again?: boolean };

/** Whether `ref`, made by `from`, names `to`. */
export const refersTo = (
  ref: { name: string; namespace?: string } | undefined,
  from: { metadata: { namespace?: string } },
  to: Subject,
) => ref !== undefined && ref.name === to.name && namespaceOf(ref, from) === to.namespace;

export const subjectOf = (kind: SubjectKind, o: { metadata: { namespace: string; name: string } }): Subject => ({
  kind,
  namespace: o.metadata.namespace,
  name: o.metadata.name,
});

/** Whether an account's operatorRef names the operator `namespace/name`. */
export const sameOperator = (a: NatsAccount, namespace: string, name: string) =>
  a.spec.operatorRef.name === name && namespaceOf(a.spec.operatorRef, a) === namespace;
