// What a pass does with the move lease (B9), on top of the decision made without it: while another
// balancer holds the lease no move is made (Holding=True, MoveLeaseHeld); otherwise a move takes
// it, a pending move renews it, and a pass that finds nothing pending lets it go. Pure.
import { setConditions } from "../../../shared/kube/index.ts";
import { leaseHeldBy, leaseWriteFor } from "../pass/lease-decision.ts";
import type { Decision } from "./types.ts";
import type { Observed } from "./observe.ts";
import { describeBalancer } from "./resource.ts";

export function withLease(observed: Observed, decision: Decision, now: Date): Decision {
  const { nats, balancer } = observed;
  if (nats.kind !== "read" || !nats.lease) return decision;
  const lease = nats.lease;
  const me = describeBalancer(balancer);
  const held = leaseHeldBy(lease, me, nats.snapshot.cluster, now);

  if (held) {
    const { lastMove } = balancer.status ?? {};
    return {
      status: {
        ...decision.status,
        conditions: setConditions(
          decision.status.conditions,
          [{ type: "Holding", status: "True", reason: "MoveLeaseHeld", message: held }],
          now,
        ),
        ...(lastMove ? { lastMove } : {}),
        pending: [],
      },
      events: decision.events.filter((e) => e.reason !== "MoveStarted"),
      poll: decision.poll,
      summary: held,
    };
  }
  const write = leaseWriteFor(lease, me, now, {
    move: decision.move !== undefined,
    pending: (decision.status.pending ?? []).length > 0,
  });
  return write ? { ...decision, lease: write } : decision;
}
