// Reading a key holder's seeds (observe): each slot's Secret as found, with the seed itself going
// into the keyring and only its public key into the reading.
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import type { Keyring } from "./keyring.ts";
import { type KeyHolder, prefixOf, roleOf } from "../objects.ts";
import { isGeneratedFor, keySlots, type KeySlot } from "./seed-secrets.ts";

export type Secret = KubeObject & { data?: Record<string, string>; type?: string };

/** What one slot's Secret holds. */
export type SlotState =
  | { kind: "ready"; publicKey: string }
  | { kind: "missing" }
  /** A Secret of a generated name that is not annotated for this object. */
  | { kind: "conflict" }
  | { kind: "invalid"; message: string };

export interface SlotReading extends KeySlot {
  state: SlotState;
}

export interface KeysReading {
  identity?: SlotReading;
  signing: SlotReading[];
}

const decodeData = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");

/** Judges one Secret as a slot's seed store (the seed goes into `keyring`). */
export function readSlot(holder: KeyHolder, slot: KeySlot, secret: Secret | undefined, keyring: Keyring): SlotReading {
  const role = roleOf(holder.kind);
  if (!secret) return { ...slot, state: { kind: "missing" } };
  if (slot.generated && !isGeneratedFor(secret.metadata.annotations, role, holder.metadata.name))
    return { ...slot, state: { kind: "conflict" } };
  const seed = decodeData(secret.data?.[slot.key]);
  if (seed === undefined)
    return slot.generated
      ? { ...slot, state: { kind: "invalid", message: `Secret ${slot.secret} has no key ${slot.key}` } }
      : { ...slot, state: { kind: "missing" } };
  const read = keyring.add(seed, prefixOf(role));
  return read.ok
    ? { ...slot, state: { kind: "ready", publicKey: read.publicKey } }
    : { ...slot, state: { kind: "invalid", message: `key ${slot.key} of Secret ${slot.secret} ${read.message}` } };
}

/** Reads every slot of a holder from the Secrets in its namespace. */
export async function readKeys(kube: Kube, holder: KeyHolder, keyring: Keyring): Promise<KeysReading> {
  const slots = keySlots(holder);
  const read = (slot: KeySlot) =>
    kube
      .get<Secret>({ apiVersion: "v1", kind: "Secret", namespace: holder.metadata.namespace, name: slot.secret })
      .then((secret) => readSlot(holder, slot, secret, keyring));
  const [identity, ...signing] = await Promise.all([
    slots.identity ? read(slots.identity) : Promise.resolve(undefined),
    ...slots.signing.map(read),
  ]);
  return { ...(identity ? { identity } : {}), signing: signing.filter((s): s is SlotReading => s !== undefined) };
}
