// Who holds a key among the objects under one NatsOperator (pure). An identity key belongs to whoever
// recorded it first: a key in status is held, whatever the creation order, so an account changing
// spec.publicKey to another's key is refused however old it is; below that a seed in a Secret
// (which proves the key is owned) outranks a key only named in spec (which anyone can copy), and
// between two claims of one kind the older object keeps the key (A33).
import type { NatsAccount, NatsSystemAccount } from "../objects.ts";
import type { KeysReading } from "./read-keys.ts";

/** How an object claims a key, weakest first. */
export type ClaimKind = "spec" | "seed" | "status";

const RANK: Record<ClaimKind, number> = { spec: 0, seed: 1, status: 2 };

/** One object's claim on a key. */
export interface KeyClaim {
  /** Kind and name, as messages say it: `NatsAccount team-a/app`. */
  holder: string;
  key: string;
  kind: ClaimKind;
  /** metadata.creationTimestamp; with `holder`, the order of two claims of one kind. */
  createdAt: string;
}

/** What an object says about its keys: status.publicKey, spec.publicKey and its identity seed's key. */
export interface KeyHolding {
  holder: string;
  createdAt: string;
  recorded?: string | undefined;
  named?: string | undefined;
  seed?: string | undefined;
}

/** Every claim an object makes: one per key, the strongest. */
export function claimsOf(holding: KeyHolding): KeyClaim[] {
  const claims: KeyClaim[] = [];
  const add = (key: string | undefined, kind: ClaimKind) => {
    if (key && !claims.some((c) => c.key === key))
      claims.push({ holder: holding.holder, key, kind, createdAt: holding.createdAt });
  };
  add(holding.recorded, "status");
  add(holding.seed, "seed");
  add(holding.named, "spec");
  return claims;
}

const outranks = (a: KeyClaim, b: KeyClaim): boolean =>
  RANK[a.kind] !== RANK[b.kind]
    ? RANK[a.kind] > RANK[b.kind]
    : a.createdAt !== b.createdAt
      ? a.createdAt < b.createdAt
      : a.holder < b.holder;

/**
 * The other holder `key` belongs to rather than to `self`, or undefined when `self` may take it.
 * `others` are the claims of every other object under the same operator.
 */
export function keyHolder(self: KeyHolding, key: string, others: readonly KeyClaim[]): KeyClaim | undefined {
  const mine = claimsOf(self).find((c) => c.key === key) ?? {
    holder: self.holder,
    key,
    kind: "spec" as const,
    createdAt: self.createdAt,
  };
  return others.filter((c) => c.key === key && c.holder !== self.holder).find((c) => outranks(c, mine));
}

/** How a refusal names the holder and how it holds the key. */
export function heldBy(claim: KeyClaim): string {
  const how = { status: "records it in status", seed: "holds its seed", spec: "names it in spec" }[claim.kind];
  return `${claim.holder}, which ${how}`;
}

/** The identity key a reading of seeds gives, if its Secret holds a valid one. */
export const seedKeyOf = (keys: KeysReading): string | undefined =>
  keys.identity?.state.kind === "ready" ? keys.identity.state.publicKey : undefined;

/** One account's holding, its seed read from `keys` when given. */
export function holdingOf(account: NatsAccount | NatsSystemAccount, keys?: KeysReading): KeyHolding {
  const seed = keys ? seedKeyOf(keys) : undefined;
  return {
    holder: `${account.kind} ${account.metadata.namespace}/${account.metadata.name}`,
    createdAt: account.metadata.creationTimestamp ?? "",
    ...(account.status?.publicKey ? { recorded: account.status.publicKey } : {}),
    ...(account.spec.publicKey ? { named: account.spec.publicKey } : {}),
    ...(seed ? { seed } : {}),
  };
}
