// The reference-form trusts: a NatsOperatorTrust mirrors its operator's JWTs, a NatsAccountTrust
// its account's key and JWT. render-cluster owns their status at rest (its resync); nothing reads
// what sign-account writes into them, so they have no dependents.
import { authReconciler } from "../auth-reconciler.ts";
import { grantsInto } from "../related.ts";
import { decideAccountTrust } from "./decide-account-trust.ts";
import { decideTrust } from "./decide-operator-trust.ts";
import { observeAccountTrust, observeOperatorTrust } from "./observe.ts";

const none = async () => [];

export const operatorTrustReconciler = authReconciler({
  kind: "NatsOperatorTrust",
  ownsStatus: false,
  related: [grantsInto("NatsOperatorTrust")],
  observe: observeOperatorTrust,
  decide: decideTrust,
  dependents: none,
});

export const accountTrustReconciler = authReconciler({
  kind: "NatsAccountTrust",
  ownsStatus: false,
  related: [grantsInto("NatsAccountTrust")],
  observe: observeAccountTrust,
  decide: decideAccountTrust,
  dependents: none,
});
