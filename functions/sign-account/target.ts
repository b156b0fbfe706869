// Which auth object an event is about: the object itself, the owner of a seed Secret (by its
// generated-for annotation, or by its name once it is gone), the NatsUser of a creds Secret, or the
// object a renewal tick names; for a NatsReferenceGrant, every object referring into its namespace.
import { GENERATED_FOR_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import type { OperatorEvent } from "../../shared/runtime/event.ts";
import { referrersInto } from "./grant-referrers.ts";
import { isSubjectKind, type SubjectKind, type Subject } from "./objects.ts";

export type Target =
  | { kind: "subject"; subject: Subject }
  /** A grant's change: each object it may admit or have admitted, in turn. */
  | { kind: "subjects"; subjects: Subject[] }
  | { kind: "none"; reason: string };

const ROLE_KINDS: Record<string, SubjectKind> = {
  operator: "NatsOperator",
  systemaccount: "NatsSystemAccount",
  account: "NatsAccount",
};

const none = (reason: string): Target => ({ kind: "none", reason });
const subject = (kind: SubjectKind, namespace: string, name: string): Target => ({
  kind: "subject",
  subject: { kind, namespace, name },
});

/** The object a Secret's name says it belongs to, for a Secret already gone. */
function fromSecretName(namespace: string, name: string): Target {
  const seed = /^(.+)-(operator|systemaccount|account)-(identity|signing-\d+)$/.exec(name);
  if (seed?.[1] && seed[2]) return subject(ROLE_KINDS[seed[2]] ?? "NatsAccount", namespace, seed[1]);
  const creds = /^(.+)-creds$/.exec(name);
  if (creds?.[1]) return subject("NatsUser", namespace, creds[1]);
  return none(`Secret ${name} is not one of sign-account's`);
}

async function fromSecret(kube: Kube, namespace: string, name: string): Promise<Target> {
  const secret = await kube.get<KubeObject>({ apiVersion: "v1", kind: "Secret", namespace, name });
  if (!secret) return fromSecretName(namespace, name);
  const generatedFor = secret.metadata.annotations?.[GENERATED_FOR_ANNOTATION];
  const [role, owner] = generatedFor?.split("/") ?? [];
  const kind = role ? ROLE_KINDS[role] : undefined;
  if (kind && owner) return subject(kind, namespace, owner);
  const user = secret.metadata.ownerReferences?.find((o) => o.controller && o.kind === "NatsUser");
  if (user) return subject("NatsUser", namespace, user.name);
  return none(`Secret ${name} is neither a generated seed nor a creds Secret`);
}

export async function resolveTarget(kube: Kube, event: OperatorEvent): Promise<Target> {
  if (event.source === "ping") {
    const { namespace, kind, name } = event.work;
    return typeof namespace === "string" && typeof name === "string" && typeof kind === "string" && isSubjectKind(kind)
      ? subject(kind, namespace, name)
      : none("tick names no auth object");
  }
  const { ref } = event;
  if (isSubjectKind(ref.kind)) return subject(ref.kind, ref.namespace, ref.name);
  if (ref.kind === "Secret") return fromSecret(kube, ref.namespace, ref.name);
  if (ref.kind === "NatsReferenceGrant") {
    const subjects = await referrersInto(kube, ref.namespace);
    return subjects.length > 0
      ? { kind: "subjects", subjects }
      : none(`no auth object refers into namespace ${ref.namespace}`);
  }
  return none(`${ref.kind} is not reconciled by sign-account yet`);
}
