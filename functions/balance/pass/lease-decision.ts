// What a pass does with the move lease (B9), on top of the decision made without it: while another
// balancer holds the lease no move is made (Holding=True, MoveLeaseHeld); otherwise a move takes
// it, a pending move renews it, and a pass that finds nothing pending lets it go. Pure.
import { setConditions } from "../../../shared/kube/conditions.ts";
import { describeBalancer } from "../system/resource.ts";
import type { Decision } from "../system/decide.ts";
import { currentHolder, LEASE_TTL_MS, type LeaseOp, type MoveLease } from "./lease.ts";
import type { Observed } from "../system/observe.ts";

/** The lease as read, and what to write over it. */
export interface LeaseWrite {
  lease: MoveLease;
  op: LeaseOp;
}

/** Why `me` may not move on `cluster` now: another holder's lease, or undefined when it may. */
export function leaseHeldBy(lease: MoveLease, me: string, cluster: string, now: Date): string | undefined {
  const holder = currentHolder(lease, now);
  if (!holder || holder === me) return undefined;
  const until = new Date(Date.parse(lease.renewTime ?? "") + LEASE_TTL_MS).toISOString();
  return `${holder} holds the move lease of NATS cluster ${cluster} (it lapses at ${until} unless renewed)`;
}

/** The write a pass of `me` makes over the lease it may use: take or renew for a move or a pending one, else release its own. */
export function leaseWriteFor(
  lease: MoveLease,
  me: string,
  now: Date,
  moving: { move: boolean; pending: boolean },
): LeaseWrite | undefined {
  const mine = currentHolder(lease, now) === me;
  const op: LeaseOp["kind"] | undefined =
    moving.move || moving.pending ? (mine ? "renew" : "take") : lease.holder === me ? "release" : undefined;
  return op ? { lease, op: { kind: op, holder: me, at: now } } : undefined;
}

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
