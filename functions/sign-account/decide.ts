// The decision of one reconcile, from what observe.ts read and the time: pure, so the same
// observation always gives the same decision.
import { decideAccount } from "./account/decide.ts";
import { decideAccountTrust } from "./trust/decide-account-trust.ts";
import { withDeletions } from "./operator/deleted-accounts.ts";
import { decideOperator } from "./operator/decide.ts";
import { decideSystemAccount } from "./system-account/decide.ts";
import { decideTrust } from "./trust/decide-operator-trust.ts";
import { decideUser } from "./user/decide.ts";
import type { Decision } from "./decision.ts";
import type { Observed } from "./observe.ts";

export function decide(observed: Observed, now: Date): Decision {
  switch (observed.kind) {
    case "NatsOperator":
      return withDeletions(decideOperator(observed, now), observed);
    case "NatsSystemAccount":
      return decideSystemAccount(observed, now);
    case "NatsAccount":
      return decideAccount(observed, now);
    case "NatsUser":
      return decideUser(observed, now);
    case "NatsOperatorTrust":
      return decideTrust(observed, now);
    case "NatsAccountTrust":
      return decideAccountTrust(observed, now);
  }
}
