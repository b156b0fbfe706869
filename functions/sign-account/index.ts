import { pendingFunction } from "../pending.ts";

/** Signs operator, account and user JWTs, writes creds Secrets and pushes accounts over $SYS. */
export const signAccount = pendingFunction(
  "sign-account",
  [
    "NatsOperator.auth.nats-operator.io",
    "NatsSystemAccount.auth.nats-operator.io",
    "NatsAccount.auth.nats-operator.io",
    "NatsUser.auth.nats-operator.io",
    "NatsOperatorTrust.nats-operator.io",
    "NatsAccountTrust.nats-operator.io",
    "Secret.",
  ],
  true,
);
export const handle = signAccount.handle;
