import type { CloudEvent } from "cloudevents";
import type { OperatorFunction } from "../runtime/function.ts";
import type { TriggerRoute } from "./manifests.ts";
import { routeEvent } from "./router.ts";

/** The Broker's part in one process: events in, one delivery per function whose Trigger passes. */
export interface FunctionRouting {
  /** Starts the deliveries of one event without waiting for them, as the sources expect. */
  emit(ce: CloudEvent<unknown>): void;
  /** Settles once every delivery started so far has ended (on shutdown, after aborting them). */
  drain(): Promise<void>;
  /** How many deliveries have started and not ended. */
  inFlight(): number;
}

/**
 * Routes each event by the Triggers' filters to the functions this process hosts and hands it to
 * `deliver` (retries, faults and logging are the caller's), keeping track of what is in flight.
 * A routed function the process does not host (not selected) is skipped.
 */
export function routeToFunctions(
  routes: readonly TriggerRoute[],
  functions: ReadonlyMap<string, OperatorFunction>,
  deliver: (fn: OperatorFunction, ce: CloudEvent<unknown>) => Promise<unknown>,
): FunctionRouting {
  const inFlight = new Set<Promise<unknown>>();
  return {
    emit: (ce) => {
      for (const service of routeEvent(routes, ce)) {
        const fn = functions.get(service);
        if (!fn) continue;
        const delivery = deliver(fn, ce);
        inFlight.add(delivery);
        void delivery.finally(() => inFlight.delete(delivery));
      }
    },
    drain: async () => {
      await Promise.allSettled([...inFlight]);
    },
    inFlight: () => inFlight.size,
  };
}
