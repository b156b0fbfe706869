// `nats_operator.balancer.held_passes`: each claimed pass that ends with Holding=True counts once,
// by the reason it held, so an operator sees how often and why balancing waits.
import { type Counter, type Meter, metrics } from "@opentelemetry/api";
import { type Condition, findCondition } from "../../../shared/kube/index.ts";

export const HELD_PASSES = "nats_operator.balancer.held_passes";

const counters = new WeakMap<Meter, Counter>();

function counterOf(meter: Meter): Counter {
  let counter = counters.get(meter);
  if (!counter) {
    counter = meter.createCounter(HELD_PASSES, {
      description: "Balancer passes that ended Holding, by reason",
      unit: "{pass}",
    });
    counters.set(meter, counter);
  }
  return counter;
}

/** Counts the pass whose status is `status` when it holds. */
export function countHeldPass(
  balancer: { kind: string; metadata: { namespace: string; name: string } },
  status: { conditions?: Condition[] },
  meter: Meter = metrics.getMeter("nats-operator"),
): void {
  const holding = findCondition(status.conditions, "Holding");
  if (holding?.status !== "True") return;
  counterOf(meter).add(1, {
    kind: balancer.kind,
    namespace: balancer.metadata.namespace,
    name: balancer.metadata.name,
    reason: holding.reason,
  });
}
