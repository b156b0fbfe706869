// The decision of one reconcile, from what observe.ts read and the time: pure, so the same
// observation always gives the same decision.
import { decideAccount } from "./decide-account.ts";
import { decideAccountTrust } from "./decide-account-trust.ts";
import { withDeletions } from "./decide-deletions.ts";
import { decideOperator } from "./decide-operator.ts";
import { decideSystemAccount } from "./decide-system-account.ts";
import { decideTrust } from "./decide-trust.ts";
import { decideUser } from "./decide-user.ts";
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
