// What a NatsSystemAccount reconcile observes.
import type { KeyHolding } from "../keys/key-claims.ts";
import type { KeysReading } from "../keys/read-keys.ts";
import type { NatsOperator, NatsSystemAccount } from "../objects.ts";
import type { DistributionReading } from "../servers/types.ts";

export interface SystemAccountObserved {
  kind: "NatsSystemAccount";
  object: NatsSystemAccount;
  keys: KeysReading;
  operator?: NatsOperator;
  /** What the NatsAccounts under its operator say of their keys: none of them may be its own. */
  others: KeyHolding[];
  /** What the servers hold of the system account's JWT, through the system connection. */
  distribution: DistributionReading;
}
