// balance: evens JetStream leaders across the servers of a NATS cluster (NatsSystemBalancer,
// system/), or within the pools of one account's streams (NatsBalancer, account/), and moves every
// stream off a NATS cluster (NatsClusterEvacuation, evacuation/). Each pass observes (reads only),
// decides (pure) and acts (the guarded status write that claims the pass, then the moves).
import { createConnectionPool } from "../../shared/nats/index.ts";
import { defineFunction } from "../../shared/runtime/index.ts";
import { accountBalancer } from "./account/reconciler.ts";
import { evacuation } from "./evacuation/reconciler.ts";
import { systemBalancer } from "./system/reconciler.ts";

const pool = createConnectionPool(undefined, "nats-operator/balance");

export const balance = defineFunction("balance", [systemBalancer(pool), accountBalancer(pool), evacuation(pool)], {
  shutdown: () => pool.closeAll(),
});

export const handle = balance.handle;
