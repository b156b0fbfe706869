// What a NatsAccount reconcile observes.
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
  /** The system account key of the operator, as the operator or its system account records it. */
  systemAccountKey?: string;
  /** The other NatsAccounts under the same operator. */
  siblings: NatsAccount[];
  /** The NatsUsers of the account: the deleted ones and their replaced keys are revoked. */
  users: NatsUser[];
  /** What the servers hold of the account's JWT, through the system connection. */
  distribution: DistributionReading;
  /** What each of spec.imports names, by position (read only for an admitted account). */
  imports: ImportReading[];
}
