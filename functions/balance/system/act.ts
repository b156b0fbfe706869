// Carrying out a pass's decision: the status write that claims it, then the one leader move and
// the Events. The write is guarded by the resourceVersion the decision was made from, so of
// concurrent deliveries only one gets past it and a move is requested once.
import { type EventRecorder, type Kube, writeStatus } from "../../../shared/kube/index.ts";
import type { NatsSystemBalancer } from "./resource.ts";
import { claimPass, FIELD_MANAGER, type MoveSender } from "../pass/claim.ts";
import type { Decision } from "./types.ts";

export type PassResult = { kind: "done"; refused?: string } | { kind: "conflict" };

export async function act(
  kube: Kube,
  recorder: EventRecorder,
  balancer: NatsSystemBalancer,
  decision: Decision,
  send: MoveSender,
): Promise<PassResult> {
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
