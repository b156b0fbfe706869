// sign-account: keys, operator, account and user JWTs, creds Secrets, and the reference-form trusts;
// one reconciler per kind (operator/, system-account/, account/, user/, trust/). Each object is
// observed, decided and acted on (auth-reconciler.ts), then the objects that read it, in the same
// delivery and in order: one after another, breadth first, so each reads what the ones before it wrote.
import { defineFunction } from "../../shared/runtime/index.ts";
import { accountReconciler } from "./account/reconciler.ts";
import { userViewOfAccount } from "./account/user-view.ts";
import { operatorReconciler } from "./operator/reconciler.ts";
import { closeSystemConnections } from "./servers/system-connection.ts";
import { systemAccountReconciler } from "./system-account/reconciler.ts";
import { accountTrustReconciler, operatorTrustReconciler } from "./trust/reconcilers.ts";
import { userReconciler } from "./user/reconciler.ts";

/** In the order a grant's referrers are reconciled: accounts before the users they sign. */
export const reconcilers = [
  operatorReconciler,
  systemAccountReconciler,
  accountReconciler,
  userReconciler,
  operatorTrustReconciler,
  accountTrustReconciler,
] as const;

export const signAccount = defineFunction("sign-account", reconcilers, {
  inOrder: true,
  inputFacets: [userViewOfAccount],
  shutdown: () => closeSystemConnections(),
});

export const handle = signAccount.handle;
