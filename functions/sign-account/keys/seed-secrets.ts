// Where a key holder's seeds live: the Secrets its spec adopts, or the generated ones named
// `<name>-<role>-identity` and `<name>-<role>-signing-1`, which carry the generated-for annotation
// and no owner reference, so that deleting and re-applying the object takes the same keys.
import { GENERATED_FOR_ANNOTATION } from "../../../shared/api/index.ts";
import type { KeyHolder, KeyRole } from "../objects.ts";
import type { SigningKeyScope } from "./types.ts";
import { roleOf } from "../objects.ts";

/** The data key generated Secrets keep their seed under. */
export const SEED_KEY = "seed";

/** The label that makes the Secrets ApiServerSource watch a Secret (knative/apiserversources.yaml). */
export const WATCHED_SECRET_LABELS = { "app.kubernetes.io/managed-by": "nats-operator" } as const;

export const generatedSecretName = (name: string, role: KeyRole, slot: "identity" | "signing-1"): string =>
  `${name}-${role}-${slot}`;

/** The annotation value that marks a generated Secret as this object's. */
export const generatedFor = (role: KeyRole, name: string): string => `${role}/${name}`;

export const GENERATED_SIGNING_NAME = "signing-1";

/** One key of a holder, and where its seed is read from. */
export interface KeySlot {
  /** `identity`, or the signing key's name. */
  name: string;
  secret: string;
  key: string;
  /** A Secret of a generated name, which sign-account may create. */
  generated: boolean;
  retiring: boolean;
  /** A scoped account signing key's scope: it signs only the users naming its role. */
  scope?: SigningKeyScope;
}

export interface KeySlots {
  /** Undefined when the identity is held offline (`publicKey`, or an operator `jwt`). */
  identity?: KeySlot;
  signing: KeySlot[];
}

const offlineIdentity = (holder: KeyHolder): boolean =>
  holder.kind === "NatsOperator" ? holder.spec.jwt !== undefined : holder.spec.publicKey !== undefined;

/** The slots a holder's spec asks for (pure). */
export function keySlots(holder: KeyHolder): KeySlots {
  const role = roleOf(holder.kind);
  const name = holder.metadata.name;
  const keys = holder.spec.keys;
  const identityRef = keys?.identity?.secretKeyRef;
  const identity: KeySlot | undefined = identityRef
    ? {
        name: "identity",
        secret: identityRef.name,
        key: identityRef.key,
        generated: false,
        retiring: false,
      }
    : offlineIdentity(holder)
      ? undefined
      : {
          name: "identity",
          secret: generatedSecretName(name, role, "identity"),
          key: SEED_KEY,
          generated: true,
          retiring: false,
        };
  const adopted = keys?.signing ?? [];
  const signing: KeySlot[] =
    adopted.length > 0
      ? adopted.map((k) => ({
          name: k.name,
          secret: k.secretKeyRef.name,
          key: k.secretKeyRef.key,
          generated: false,
          retiring: k.retiring === true,
          ...(k.scope ? { scope: k.scope } : {}),
        }))
      : [
          {
            name: GENERATED_SIGNING_NAME,
            secret: generatedSecretName(name, role, "signing-1"),
            key: SEED_KEY,
            generated: true,
            retiring: false,
          },
        ];
  return { ...(identity ? { identity } : {}), signing };
}

/** Whether a Secret of a generated name is this object's: annotated for it. */
export const isGeneratedFor = (annotations: Record<string, string> | undefined, role: KeyRole, name: string): boolean =>
  annotations?.[GENERATED_FOR_ANNOTATION] === generatedFor(role, name);
