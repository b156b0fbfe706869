// An evacuation deleted before it was Ready takes its requested moves back: CANCEL_MOVE for each,
// a MoveCancelled Event for each one that was still under way, then the finalizer goes. One that
// finished (Ready), or whose connection is gone or not admitted, has nothing it could cancel.
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { isConditionTrue } from "../../shared/kube/conditions.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import { hasFinalizer, removeFinalizer } from "../../shared/kube/finalizers.ts";
import type { ConnectionPool } from "../../shared/nats/pool.ts";
import { describeStream } from "./decide-evacuation.ts";
import type { NatsClusterEvacuation } from "./evacuation.ts";
import { cancelMove } from "./move.ts";
import { evacuationConnection } from "./observe-evacuation.ts";

/** Cancels what is left to cancel and releases the finalizer; says what it did. */
export async function releaseEvacuation(
  kube: Kube,
  pool: ConnectionPool,
  recorder: EventRecorder,
  evacuation: NatsClusterEvacuation,
): Promise<string> {
  if (!hasFinalizer(evacuation, FINALIZERS.jetstream)) return "being deleted, nothing to release";
  const requested = evacuation.status?.requested ?? [];
  const notes: string[] = [];
  if (!isConditionTrue(evacuation.status?.conditions, "Ready") && requested.length > 0) {
    const connected = await evacuationConnection(kube, pool, evacuation);
    if (!connected.ok) notes.push(`no move cancelled: ${connected.message}`);
    else
      for (const entry of requested) {
        const move = { account: entry.account ?? "", stream: entry.stream ?? "" };
        try {
          if (!(await cancelMove(connected.nc, move))) continue;
          await recorder.record(
            evacuation,
            "Normal",
            "MoveCancelled",
            `cancelled the move of ${describeStream(move)} off NATS cluster ${evacuation.spec.from.cluster}`,
          );
          notes.push(`cancelled ${describeStream(move)}`);
        } catch (error) {
          // The deletion is not held for a move that cannot be cancelled: it finishes on its own.
          notes.push(`${describeStream(move)} not cancelled: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
  }
  await removeFinalizer(kube, evacuation, FINALIZERS.jetstream);
  return notes.length > 0 ? `released: ${notes.join("; ")}` : "released";
}
