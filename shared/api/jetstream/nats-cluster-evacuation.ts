// NatsClusterEvacuation: moves every stream off one NATS cluster.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf, Int32, OneOf, Text } from "../common/fields.ts";
import { Time } from "../common/formats.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import { resourceSchema, readyColumns, ageColumn, type KindDefinition } from "../common/kind-definition.ts";
import { ImmutableConnectionRef } from "./policies.ts";

export const NatsClusterEvacuationSpec = Struct(
  {
    connectionRef: ImmutableConnectionRef(),
    from: Struct(
      { cluster: NonEmptyText("Name of the NATS cluster to empty.") },
      "The source: always a whole NATS cluster. Cannot change.",
      { rules: [{ rule: "self == oldSelf", message: "from is immutable" }] },
    ),
    to: Struct(
      {
        serverTags: ListOf(
          NonEmptyText("A server tag."),
          "Tags the target servers carry; no source server may carry them.",
          { minItems: 1, listType: "atomic" },
        ),
      },
      "The target servers. Cannot change.",
      { rules: [{ rule: "self == oldSelf", message: "to is immutable" }] },
    ),
  },
  "What to evacuate and where to; streams whose resource pins placement.cluster are left alone.",
);
export type NatsClusterEvacuationSpec = Static<typeof NatsClusterEvacuationSpec>;

export const NatsClusterEvacuationStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready and Progressing")),
    moved: Optional(Int32("Streams moved.")),
    inFlight: Optional(Int32("Moves in flight.")),
    remaining: Optional(Int32("Streams still to leave, pinned ones and those left to their owners not counted.")),
    requested: Optional(
      ListOf(
        Struct(
          {
            account: Optional(Text("Account public key.")),
            stream: Optional(Text("Stream name.")),
            time: Optional(Time("When the move was requested.")),
          },
          "A requested move.",
        ),
        "Moves not yet seen complete; deleting the evacuation cancels them.",
        { listType: "atomic" },
      ),
    ),
    pinned: Optional(
      ListOf(
        Struct(
          {
            kind: OneOf(["NatsStream", "NatsKeyValue", "NatsObjectStore"], "Kind of the resource."),
            namespace: NonEmptyText("Namespace of the resource."),
            name: NonEmptyText("Name of the resource."),
          },
          "A resource that pins the source cluster.",
        ),
        "Resources whose placement.cluster names the source; the evacuation is not Ready while any remains.",
        { listType: "atomic" },
      ),
    ),
    stalePlacement: Optional(
      ListOf(
        Struct(
          {
            account: Optional(Text("Account public key.")),
            name: NonEmptyText("Stream name."),
          },
          "A moved stream whose config still names the source.",
        ),
        "Moved streams no resource owns whose placement still names the source; an update could send them back.",
        { listType: "atomic" },
      ),
    ),
  },
  "Observed state of the evacuation.",
);
export type NatsClusterEvacuationStatus = Static<typeof NatsClusterEvacuationStatus>;

export const NatsClusterEvacuationResource = resourceSchema(
  KINDS.NatsClusterEvacuation,
  NatsClusterEvacuationSpec,
  NatsClusterEvacuationStatus,
);
export type NatsClusterEvacuation = Static<typeof NatsClusterEvacuationResource>;

export const natsClusterEvacuationDefinition: KindDefinition = {
  info: KINDS.NatsClusterEvacuation,
  description:
    "Moves every stream, key-value bucket and object store of every account off one NATS cluster to servers carrying the target tags.",
  spec: NatsClusterEvacuationSpec,
  status: NatsClusterEvacuationStatus,
  columns: [
    { name: "From", type: "string", jsonPath: ".spec.from.cluster", description: "NATS cluster being emptied." },
    ...readyColumns(),
    { name: "Moved", type: "integer", jsonPath: ".status.moved", description: "Streams moved." },
    ageColumn(),
  ],
};
