// Carrying out a pass's decision: the status write that claims it, then the one leader move and
// the Events. The write is guarded by the resourceVersion the decision was made from, so of
// concurrent deliveries only one gets past it and a move is requested once.
import { FIELD_MANAGERS } from "../../shared/api/constants/field-managers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import { writeStatus } from "../../shared/kube/status.ts";
import type { NatsSystemBalancer } from "./balancer.ts";
import type { Decision, MoveRequest } from "./decide.ts";
import { writeLease } from "./lease.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.balance;

/** Sends the stepdown; resolves to why it failed, or undefined when the server took it. */
export type MoveSender = (move: MoveRequest) => Promise<string | undefined>;

export type Acted = { kind: "done"; refused?: string } | { kind: "conflict" };

export async function act(
  kube: Kube,
  recorder: EventRecorder,
  balancer: NatsSystemBalancer,
  decision: Decision,
  send: MoveSender,
): Promise<Acted> {
  // The lease first: of two balancers (or deliveries) about to move, only one gets past it.
  const lease = decision.lease;
  if (lease && lease.op.kind !== "release" && !(await writeLease(kube, lease.lease, lease.op)))
    return { kind: "conflict" };
  const claim = await writeStatus(kube, balancer, decision.status, FIELD_MANAGER, { guarded: true });
  if (claim.kind === "conflict") return { kind: "conflict" };
  if (lease?.op.kind === "release") await writeLease(kube, lease.lease, lease.op);
  const claimed = claim.kind === "written" ? claim.object : balancer;
  for (const event of decision.events) await recorder.record(claimed, event.type, event.reason, event.note);
  if (!decision.move) return { kind: "done" };

  const refused = await send(decision.move);
  if (refused === undefined) return { kind: "done" };
  // Nothing is in flight: the pending move is taken back, lastMove stays, so the next try waits
  // `interval` like any other move and a refusal cannot become a hot loop.
  await recorder.record(claimed, "Warning", "MoveRefused", refused);
  await writeStatus(kube, claimed, { ...decision.status, pending: [] }, FIELD_MANAGER, { guarded: true });
  return { kind: "done", refused };
}
