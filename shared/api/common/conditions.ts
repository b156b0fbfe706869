// The standard Kubernetes condition and the list-map of conditions every status carries.
import type { Static } from "typebox";
import { Struct, Text, NonEmptyText, OneOf, Int64, ListOf, Optional, StringMap } from "./fields.ts";
import { Time } from "./formats.ts";

export const Condition = Struct(
  {
    type: NonEmptyText("Kind of condition, in CamelCase (for example Ready).", {
      maxLength: 316,
      pattern:
        "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
    }),
    status: OneOf(["True", "False", "Unknown"], "Whether the condition holds."),
    observedGeneration: Optional(Int64("Generation of the object this condition was computed from.", { minimum: 0 })),
    lastTransitionTime: Time("When the status last changed."),
    reason: NonEmptyText("Machine-readable CamelCase cause of the current status.", {
      maxLength: 1024,
      pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
    }),
    message: Text("Human-readable detail about the current status; may be empty.", { maxLength: 32768 }),
  },
  "One observation of the object's state.",
);
export type Condition = Static<typeof Condition>;

/** The `status.conditions` list, one entry per type. */
export const Conditions = (which: string) =>
  ListOf(Condition, `Latest observations of the object's state, one per type: ${which}.`, {
    listType: "map",
    listMapKeys: ["type"],
    maxItems: 32,
  });

/** `status.observedGeneration`. */
export const ObservedGeneration = () =>
  Int64("Generation of the spec the status was last fully computed for.", { minimum: 0 });

/**
 * `status.inputs`: per function, what its last reconcile read of other objects (a digest, then the
 * objects and listings it covers), which the resync compares with the world (shared/runtime/inputs.ts).
 */
export const ReconciledInputs = () =>
  StringMap(
    "Per function, a digest of the objects its last reconcile read (Secrets, grants, trusts, connections, " +
      "referenced objects), then which: the resync reconciles the object again when they changed. Written by the operator.",
  );
