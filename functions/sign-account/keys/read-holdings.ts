// What the accounts under one operator say of their keys (observe, reads only), for the key
// uniqueness check (key-claims.ts): status.publicKey, spec.publicKey and, for an account that
// recorded no key yet, its identity seed's key where that seed can matter to the reader's claim
// (seedsThatMatter). The seeds are read into a keyring of their own, dropped here: only public keys
// leave this module.
import type { Kube } from "../../../shared/kube/index.ts";
import type { NatsAccount, NatsOperator, NatsSystemAccount } from "../objects.ts";
import { holdingOf, seedKeyOf, type KeyHolding } from "./key-claims.ts";
import { Keyring } from "./keyring.ts";
import { readKeys, type KeysReading } from "./read-keys.ts";
import { keySlots } from "./seed-secrets.ts";

/**
 * Which other accounts' seeds the reader's claim on its identity key can lose to (key-claims.ts):
 * - `none`: the reader records the key in status (only another status claim outranks it, and
 *   status is in the listing), or it has no key to claim yet (a seed to generate, a slot refused);
 * - `adopted`: its key is a seed sign-account generated for it, random: another account's
 *   generated seed is another random key, so only a seed in a Secret an account names in
 *   spec.keys (which may be a copy) can be the same key;
 * - `all`: its key is in a Secret it names, or only named in spec.publicKey (anyone can copy it).
 * An account whose key is recorded, or whose seed was generated, which is every account at rest and
 * every new one with generated keys, so costs no Secret read per sibling.
 */
export type SeedsToRead = "none" | "adopted" | "all";

export function seedsThatMatter(holder: NatsAccount | NatsSystemAccount, keys: KeysReading): SeedsToRead {
  const identity = seedKeyOf(keys) ?? (keySlots(holder).identity ? undefined : holder.spec.publicKey);
  if (!identity || identity === holder.status?.publicKey) return "none";
  return keys.identity?.generated ? "adopted" : "all";
}

/** Whether an account's seed is read for a reader whose claim can lose to `seeds`. */
function seedRead(account: NatsAccount | NatsSystemAccount, seeds: SeedsToRead): boolean {
  if (account.status?.publicKey || seeds === "none") return false;
  return seeds === "all" || keySlots(account).identity?.generated === false;
}

/**
 * The holdings of `accounts` (NatsAccounts under the operator, the reader left out) and of its
 * system account. A seed is read only where status recorded no key (once recorded, status
 * decides) and where it can matter to the reader (`seeds`, by default every one).
 */
export async function readHoldings(
  kube: Kube,
  accounts: readonly NatsAccount[],
  system: NatsSystemAccount | undefined,
  operator: NatsOperator | undefined,
  seeds: SeedsToRead = "all",
): Promise<KeyHolding[]> {
  const scratch = new Keyring();
  const read = async (account: NatsAccount | NatsSystemAccount) =>
    holdingOf(account, seedRead(account, seeds) ? await readKeys(kube, account, scratch) : undefined);
  const holdings = await Promise.all([...accounts, ...(system ? [system] : [])].map(read));
  // The operator records the system account key it signs; it may differ from the system account's own.
  const signed = operator?.status?.systemAccount;
  const ref = operator?.spec.systemAccountRef;
  if (signed?.publicKey && ref && operator && signed.publicKey !== system?.status?.publicKey)
    holdings.push({
      holder: `NatsSystemAccount ${ref.namespace ?? operator.metadata.namespace}/${ref.name}`,
      createdAt: system?.metadata.creationTimestamp ?? operator.metadata.creationTimestamp ?? "",
      recorded: signed.publicKey,
    });
  return holdings;
}
