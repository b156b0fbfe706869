import { pendingFunction } from "../pending.ts";

/** Balances JetStream placement across servers and evacuates clusters. */
export const balance = pendingFunction(
  "balance",
  [
    "NatsBalancer.jetstream.nats-operator.io",
    "NatsSystemBalancer.jetstream.nats-operator.io",
    "NatsClusterEvacuation.jetstream.nats-operator.io",
  ],
  true,
);
export const handle = balance.handle;
