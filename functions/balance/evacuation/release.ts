// An evacuation deleted before it was Ready takes its requested moves back: CANCEL_MOVE for each,
// a MoveCancelled Event for each one that was still under way, then the finalizer goes. One that
// finished (Ready) has nothing to cancel; one whose moves cannot be cancelled (the connection is
// gone or not admitted, the server does not answer) is not held: those moves finish on their own.
import { FINALIZERS } from "../../../shared/api/index.ts";
import {
  type EventRecorder,
  hasFinalizer,
  isConditionTrue,
  type Kube,
  removeFinalizer,
} from "../../../shared/kube/index.ts";
import { describeStream } from "./decide.ts";
import type { StreamRef } from "../pass/types.ts";
import type { NatsClusterEvacuation } from "./resource.ts";

/** Cancels one move: "cancelled", "none" when there was none under way, or why it could not. */
export type MoveCanceller = (move: StreamRef) => Promise<"cancelled" | "none" | { failed: string }>;

/** Cancels what is left to cancel and releases the finalizer; says what it did. */
export async function releaseEvacuation(
  kube: Kube,
  recorder: EventRecorder,
  evacuation: NatsClusterEvacuation,
  cancel: MoveCanceller,
): Promise<string> {
  if (!hasFinalizer(evacuation, FINALIZERS.jetstream)) return "being deleted, nothing to release";
  const requested = isConditionTrue(evacuation.status?.conditions, "Ready") ? [] : (evacuation.status?.requested ?? []);
  const notes: string[] = [];
  for (const entry of requested) {
    const move = { account: entry.account ?? "", stream: entry.stream ?? "" };
    const result = await cancel(move);
    if (result === "none") continue;
    if (result === "cancelled") {
      await recorder.record(
        evacuation,
        "Normal",
        "MoveCancelled",
        `cancelled the move of ${describeStream(move)} off NATS cluster ${evacuation.spec.from.cluster}`,
      );
      notes.push(`cancelled ${describeStream(move)}`);
    } else notes.push(`${describeStream(move)} not cancelled: ${result.failed}`);
  }
  await removeFinalizer(kube, evacuation, FINALIZERS.jetstream);
  return notes.length > 0 ? `released: ${notes.join("; ")}` : "released";
}
