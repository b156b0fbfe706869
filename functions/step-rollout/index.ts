import { pendingFunction } from "../pending.ts";

/** Rolls a NatsCluster one server at a time, gated on the NATS cluster being Settled. */
export const stepRollout = pendingFunction("step-rollout", ["NatsCluster.cluster.nats-operator.io", "StatefulSet.apps"], true);
export const handle = stepRollout.handle;
