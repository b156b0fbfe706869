// The deletion guard: a NatsCluster whose NATS cluster still holds JetStream streams is not
// deleted (finalizer) until the data is gone or force-delete says to go anyway.
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { Snapshot } from "./snapshot.ts";

export type DeletionVerdict =
  { release: true; condition: ConditionUpdate } | { release: false; condition: ConditionUpdate };

export function judgeDeletion(snapshot: Snapshot | undefined, forceDelete: boolean): DeletionVerdict {
  if (forceDelete)
    return {
      release: true,
      condition: {
        type: "Deleting",
        status: "True",
        reason: "NoJetStreamData",
        message: "force-delete: deleting although JetStream data may remain",
      },
    };
  if (!snapshot)
    return {
      release: false,
      condition: {
        type: "Deleting",
        status: "True",
        reason: "ObservationFailed",
        message: "the NATS cluster is not observed, so its JetStream data is unknown",
      },
    };
  const streams = snapshot.groups
    .filter((g) => g.label.startsWith("stream "))
    .map((g) => g.label.slice("stream ".length));
  if (streams.length === 0)
    return {
      release: true,
      condition: { type: "Deleting", status: "False", reason: "NoJetStreamData", message: "no stream group remains" },
    };
  const shown = streams.slice(0, 5).join(", ");
  const more = streams.length > 5 ? ` and ${streams.length - 5} more` : "";
  return {
    release: false,
    condition: {
      type: "Deleting",
      status: "True",
      reason: "JetStreamDataRemains",
      message: `${streams.length} stream group${streams.length === 1 ? "" : "s"} remain: ${shown}${more}`,
    },
  };
}
