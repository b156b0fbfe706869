// What a pass does with the move lease (B9), on top of the decision made without it: while another
// balancer holds the lease no move is made (Holding=True, MoveLeaseHeld); otherwise a move takes
// it, a pending move renews it, and a pass that finds nothing pending lets it go. Pure.
import { setConditions } from "../../shared/kube/conditions.ts";
import { describeBalancer } from "./balancer.ts";
import type { Decision } from "./decide.ts";
import { currentHolder, type LeaseOp, type MoveLease } from "./lease.ts";
import type { Observed } from "./observe.ts";

/** The lease as read, and what to write over it. */
export interface LeaseWrite {
  lease: MoveLease;
  op: LeaseOp;
}

export function withLease(observed: Observed, decision: Decision, now: Date): Decision {
  const { nats, balancer } = observed;
  if (nats.kind !== "read" || !nats.lease) return decision;
  const lease = nats.lease;
  const me = describeBalancer(balancer);
  const holder = currentHolder(lease, now);

  if (holder && holder !== me) {
    const until = new Date(Date.parse(lease.renewTime ?? "") + 60_000).toISOString();
    const message = `${holder} holds the move lease of NATS cluster ${nats.snapshot.cluster} (it lapses at ${until} unless renewed)`;
    const { lastMove } = balancer.status ?? {};
    return {
      status: {
        ...decision.status,
        conditions: setConditions(
          decision.status.conditions,
          [{ type: "Holding", status: "True", reason: "MoveLeaseHeld", message }],
          now,
        ),
        ...(lastMove ? { lastMove } : {}),
        pending: [],
      },
      events: decision.events.filter((e) => e.reason !== "MoveStarted"),
      poll: decision.poll,
      summary: message,
    };
  }
  const pending = (decision.status.pending ?? []).length > 0;
  const op: LeaseOp["kind"] | undefined =
    decision.move || pending ? (holder === me ? "renew" : "take") : lease.holder === me ? "release" : undefined;
  return op ? { ...decision, lease: { lease, op: { kind: op, holder: me, at: now } } } : decision;
}
