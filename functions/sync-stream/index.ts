// sync-stream: keeps NatsStream, NatsConsumer, NatsKeyValue and NatsObjectStore in line with
// JetStream through their NatsConnection, and reports NatsConnection readiness.
import { createConnectionPool } from "../../shared/nats/index.ts";
import { defineFunction } from "../../shared/runtime/index.ts";
import { connectionReconciler } from "./connection/reconciler.ts";
import { pooledJetStream } from "./jetstream/server.ts";
import { objectReconciler } from "./objects/reconciler.ts";
import { grantReferrers, unsettledObjects } from "./objects/related.ts";

/** One NATS connection per NatsConnection per process, closed on shutdown. */
const pool = createConnectionPool();
const connect = pooledJetStream(pool);

export const syncStream = defineFunction(
  "sync-stream",
  [
    // First: a settle tick re-checks the waiting connections before it reads which objects are unsettled.
    connectionReconciler(pool),
    // The namespace-wide mappings lead to objects of all four kinds; one reconciler declares them,
    // so each object is reached once.
    objectReconciler("NatsStream", { connect, related: [grantReferrers, unsettledObjects] }),
    objectReconciler("NatsConsumer", { connect }),
    objectReconciler("NatsKeyValue", { connect }),
    objectReconciler("NatsObjectStore", { connect }),
  ],
  {
    // JetStream drifts without an event: the resync tick compares every object with its server.
    checksDrift: true,
    shutdown: () => pool.closeAll(),
  },
);

export const handle = syncStream.handle;
