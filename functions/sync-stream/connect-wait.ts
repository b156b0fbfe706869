// A NatsConnection whose servers do not answer yet (a NatsCluster applied with it, still
// starting) is re-checked on its namespace's settle tick, every 15 s, for its first ten minutes
// without them: it turns Ready, and its streams sync, within seconds of the servers coming up
// rather than after the Broker's doubling backoff. Past that the resync tick re-checks it, so a
// connection left pointing at nothing costs no schedule.
import { type Condition, findCondition } from "../../shared/kube/index.ts";
import type { NatsConnectionObject } from "../../shared/nats/index.ts";
import { resyncPeriodMs } from "./context.ts";

/** How long after turning not Ready a connection is re-checked on the settle tick. */
export const connectPollMs = resyncPeriodMs;

/** Whether a connection with these conditions is still re-checked on the settle tick at `now`. */
export function waitsForServers(conditions: readonly Condition[] | undefined, now: Date): boolean {
  const ready = findCondition(conditions, "Ready");
  if (ready?.status !== "False") return false;
  return now.getTime() - Date.parse(ready.lastTransitionTime) < connectPollMs;
}

/** A NatsConnection with the status sync-stream writes. */
export type ConnectionWithStatus = NatsConnectionObject & {
  status?: { observedGeneration?: number; conditions?: Condition[] };
};
