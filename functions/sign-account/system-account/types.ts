// What a NatsSystemAccount reconcile observes.
import type { KeysReading } from "../keys/read-keys.ts";
import type { NatsOperator, NatsSystemAccount } from "../objects.ts";
import type { DistributionReading } from "../servers/types.ts";

export interface SystemAccountObserved {
  kind: "NatsSystemAccount";
  object: NatsSystemAccount;
  keys: KeysReading;
  operator?: NatsOperator;
  /** What the servers hold of the system account's JWT, through the system connection. */
  distribution: DistributionReading;
}
