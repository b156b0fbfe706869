// What a key holder's seeds come to (pure): its keys, the seeds to generate, or why it cannot be
// signed. A generated identity is made once: after status.publicKey recorded it, a lost or
// replaced one is SeedLost, since a new identity would orphan every JWT issued under the old.
import type { KeysReading, SlotReading } from "./read-keys.ts";
import type { KeyRole } from "../objects.ts";
import type { SigningKey } from "./types.ts";

/** A seed Secret act creates. */
export interface SeedToGenerate {
  secret: string;
  role: KeyRole;
  /** Which slot: the identity or a signing key. */
  slot: string;
}

export type KeyRefusalReason = "SecretConflict" | "SeedLost" | "KeysPending" | "InvalidKeys" | "InvalidJWT";

export type KeyVerdict =
  | {
      kind: "ready";
      /** The identity public key: from its seed, or held offline. */
      identity: string;
      /** Every signing key, retiring ones included, as the JWT lists them. */
      signing: SigningKey[];
      /** The first signing key neither retiring nor scoped: what signs (a user with a role excepted). */
      active: string;
    }
  | { kind: "generate"; seeds: SeedToGenerate[] }
  | { kind: "refused"; reason: KeyRefusalReason; message: string };

const refused = (reason: KeyRefusalReason, message: string): KeyVerdict => ({ kind: "refused", reason, message });

/**
 * Judges the keys read for `what` (say, `NatsAccount team-a/app`). `offlineIdentity` is the
 * identity held offline (spec.publicKey, or the subject of an operator's spec.jwt); `recorded`
 * is status.publicKey.
 */
export function judgeKeys(
  what: string,
  role: KeyRole,
  reading: KeysReading,
  recorded: string | undefined,
  offlineIdentity?: string,
): KeyVerdict {
  const slots: SlotReading[] = [...(reading.identity ? [reading.identity] : []), ...reading.signing];
  const conflict = slots.find((s) => s.state.kind === "conflict");
  if (conflict)
    return refused(
      "SecretConflict",
      `Secret ${conflict.secret} exists but is not annotated as generated for ${what}; it is left alone`,
    );
  for (const slot of slots)
    if (slot.state.kind === "invalid") return refused("InvalidKeys", `${what}: ${slot.state.message}`);
  const scoped = slots.find((s) => s.scope);
  if (scoped && role === "operator")
    return refused(
      "InvalidKeys",
      `${what}: signing key ${scoped.name} has a scope, which operator signing keys take none of`,
    );

  const identity = reading.identity;
  if (identity?.state.kind === "missing" && identity.generated && recorded)
    return refused(
      "SeedLost",
      `the identity seed Secret ${identity.secret} of ${what} is gone after ${recorded} was recorded; ` +
        "no new identity is minted, since every JWT issued under the old one would be orphaned",
    );
  if (identity?.state.kind === "ready" && identity.generated && recorded && identity.state.publicKey !== recorded)
    return refused(
      "SeedLost",
      `the identity seed Secret ${identity.secret} of ${what} holds ${identity.state.publicKey}, not the recorded ${recorded}`,
    );
  const adoptedMissing = slots.find((s) => s.state.kind === "missing" && !s.generated);
  if (adoptedMissing)
    return refused(
      "KeysPending",
      `${what}: key ${adoptedMissing.key} of Secret ${adoptedMissing.secret} (${adoptedMissing.name}) does not exist yet`,
    );
  const toGenerate = slots
    .filter((s) => s.state.kind === "missing" && s.generated)
    .map((s) => ({ secret: s.secret, role, slot: s.name }));
  if (toGenerate.length > 0) return { kind: "generate", seeds: toGenerate };

  const publicOf = (s: SlotReading) => (s.state.kind === "ready" ? s.state.publicKey : "");
  const identityKey = identity ? publicOf(identity) : offlineIdentity;
  if (!identityKey) return refused("InvalidKeys", `${what} has neither an identity seed nor a public key`);
  const signing = reading.signing.map((s) => ({
    publicKey: publicOf(s),
    retiring: s.retiring,
    ...(s.scope ? { scope: s.scope } : {}),
  }));
  const active = signing.find((s) => !s.retiring && !s.scope);
  if (!active) return refused("InvalidKeys", `${what} has no signing key that is neither retiring nor scoped`);
  if (signing.some((s) => s.publicKey === identityKey))
    return refused("InvalidKeys", `${what}: a signing key is the identity key itself`);
  return { kind: "ready", identity: identityKey, signing, active: active.publicKey };
}
