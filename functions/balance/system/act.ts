// Carrying out a pass's decision: the status write that claims it, then the one leader move and
// the Events. The write is guarded by the resourceVersion the decision was made from, so of
// concurrent deliveries only one gets past it and a move is requested once.
import { FIELD_MANAGERS } from "../../../shared/api/constants/field-managers.ts";
import type { Kube } from "../../../shared/kube/client.ts";
import type { EventRecorder } from "../../../shared/kube/events.ts";
import { writeStatus } from "../../../shared/kube/status.ts";
import type { NatsBalancer } from "../account/resource.ts";
import type { NatsSystemBalancer } from "./resource.ts";
import type { BalancerEvent, Decision, MoveRequest } from "./decide.ts";
import { writeLease } from "../pass/lease.ts";
import type { LeaseWrite } from "../pass/lease-decision.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.balance;

/** Sends the stepdown; resolves to why it failed, or undefined when the server took it. */
export type MoveSender = (move: MoveRequest) => Promise<string | undefined>;

export type Acted = { kind: "done"; refused?: string } | { kind: "conflict" };

/**
 * Claims a pass, for either kind of balancer: the lease first (of two balancers, or deliveries,
 * about to move only one gets past it), then the status guarded by the resourceVersion read, then
 * a lease let go, then the Events. Undefined when another holder or delivery got there first.
 */
export async function claimPass<B extends NatsSystemBalancer | NatsBalancer>(
  kube: Kube,
  recorder: EventRecorder,
  balancer: B,
  pass: { status: Record<string, unknown>; lease?: LeaseWrite; events: readonly BalancerEvent[] },
): Promise<B | undefined> {
  const lease = pass.lease;
  if (lease && lease.op.kind !== "release" && !(await writeLease(kube, lease.lease, lease.op))) return undefined;
  const claim = await writeStatus(kube, balancer, pass.status, FIELD_MANAGER, { guarded: true });
  if (claim.kind === "conflict") return undefined;
  if (lease?.op.kind === "release") await writeLease(kube, lease.lease, lease.op);
  const claimed = claim.kind === "written" ? (claim.object as B) : balancer;
  for (const event of pass.events) await recorder.record(claimed, event.type, event.reason, event.note);
  return claimed;
}

export async function act(
  kube: Kube,
  recorder: EventRecorder,
  balancer: NatsSystemBalancer,
  decision: Decision,
  send: MoveSender,
): Promise<Acted> {
  const claimed = await claimPass(kube, recorder, balancer, decision);
  if (!claimed) return { kind: "conflict" };
  if (!decision.move) return { kind: "done" };

  const refused = await send(decision.move);
  if (refused === undefined) return { kind: "done" };
  // Nothing is in flight: the pending move is taken back, lastMove stays, so the next try waits
  // `interval` like any other move and a refusal cannot become a hot loop.
  await recorder.record(claimed, "Warning", "MoveRefused", refused);
  await writeStatus(kube, claimed, { ...decision.status, pending: [] }, FIELD_MANAGER, { guarded: true });
  return { kind: "done", refused };
}
