// What a pass does with the move lease (B9), on top of the decision made without it: while another
// balancer holds the lease no move is made (Holding=True, MoveLeaseHeld); otherwise a move takes
// it, a pending move renews it, and a pass that finds nothing pending lets it go. Pure.
import { currentHolder, LEASE_TTL_MS, type LeaseOp, type MoveLease } from "./lease.ts";

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
