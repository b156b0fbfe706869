// Carrying out an evacuation pass: the status write that claims it, the Events, then the moves.
// The write is guarded by the resourceVersion the decision was made from, so of concurrent
// deliveries only one gets past it and each move is requested once.
import { type EventRecorder, type Kube, writeStatus } from "../../../shared/kube/index.ts";
import { FIELD_MANAGER } from "../pass/claim.ts";
import { type EvacuationDecision, withRefusals } from "./decide.ts";
import type { StreamRef } from "../pass/types.ts";
import type { NatsClusterEvacuation } from "./resource.ts";

/** Requests one move; resolves to why it failed, or undefined when the server took it. */
export type MoveRequester = (move: StreamRef) => Promise<string | undefined>;

export type EvacuationActed = { kind: "done"; refused: number } | { kind: "conflict" };

export async function actEvacuation(
  kube: Kube,
  recorder: EventRecorder,
  evacuation: NatsClusterEvacuation,
  decision: EvacuationDecision,
  request: MoveRequester,
  now: Date,
): Promise<EvacuationActed> {
  const claim = await writeStatus(kube, evacuation, decision.status, FIELD_MANAGER, { guarded: true });
  if (claim.kind === "conflict") return { kind: "conflict" };
  const claimed = claim.kind === "written" ? claim.object : evacuation;
  for (const event of decision.events) await recorder.record(claimed, event.type, event.reason, event.note);

  const refusals: { move: StreamRef; why: string }[] = [];
  for (const move of decision.moves) {
    const why = await request(move);
    if (why !== undefined) refusals.push({ move, why });
  }
  if (refusals.length === 0) return { kind: "done", refused: 0 };
  for (const { why } of refusals) await recorder.record(claimed, "Warning", "MoveRefused", why);
  await writeStatus(kube, claimed, withRefusals(decision.status, refusals, now), FIELD_MANAGER, { guarded: true });
  return { kind: "done", refused: refusals.length };
}
