import { pendingFunction } from "../pending.ts";

/** Keeps streams, consumers, key-value buckets and object stores in sync with JetStream. */
export const syncStream = pendingFunction(
  "sync-stream",
  [
    "NatsConnection.nats-operator.io",
    "NatsReferenceGrant.nats-operator.io",
    "NatsStream.jetstream.nats-operator.io",
    "NatsConsumer.jetstream.nats-operator.io",
    "NatsKeyValue.jetstream.nats-operator.io",
    "NatsObjectStore.jetstream.nats-operator.io",
  ],
  true,
);
export const handle = syncStream.handle;
