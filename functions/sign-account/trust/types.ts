// What a trust reconcile (reference form) observes: whether the object it names admits it, and that object.
import type { NatsAccount, NatsAccountTrust, NatsOperator, NatsOperatorTrust } from "../objects.ts";

export interface TrustObserved {
  kind: "NatsOperatorTrust";
  object: NatsOperatorTrust;
  admitted: boolean;
  operator?: NatsOperator;
}

export interface AccountTrustObserved {
  kind: "NatsAccountTrust";
  object: NatsAccountTrust;
  admitted: boolean;
  account?: NatsAccount;
}
