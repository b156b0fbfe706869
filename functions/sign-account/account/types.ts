// What a NatsAccount reconcile observes.
import type { KeyHolding } from "../keys/key-claims.ts";
import type { KeysReading } from "../keys/read-keys.ts";
import type { NatsAccount, NatsOperator, NatsUser } from "../objects.ts";
import type { DistributionReading } from "../servers/types.ts";
import type { ImportReading } from "../wiring/imports.ts";

export interface AccountObserved {
  kind: "NatsAccount";
  object: NatsAccount;
  keys: KeysReading;
  /** Whether the operator's namespace admits the account (same namespace, or a grant). */
  admitted: boolean;
  operator?: { object: NatsOperator; keys: KeysReading };
  /**
   * What every other account under the same operator says of its key: the other NatsAccounts and
   * the system account (as the operator records it, and as the NatsSystemAccount does).
   */
  others: KeyHolding[];
  /** The NatsUsers of the account: the deleted ones and their replaced keys are revoked. */
  users: NatsUser[];
  /** What the servers hold of the account's JWT, through the system connection. */
  distribution: DistributionReading;
  /**
   * What the servers hold of the identity to sign when it is not the one status recorded (a new
   * spec.publicKey or seed): compared with the claims to sign before that key is taken over.
   */
  candidate?: DistributionReading;
  /** What each of spec.imports names, by position (read only for an admitted account). */
  imports: ImportReading[];
}
