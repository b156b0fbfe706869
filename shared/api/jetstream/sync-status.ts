// Status shared by JetStream objects: sync state, ownership and the server's view.
import { Struct, NonEmptyText, Optional, OneOf, ListOf, Text, Int64, Int32, Flag } from "../common/fields.ts";
import { Quantity, Time } from "../common/formats.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import type { PrinterColumn } from "../common/kind-definition.ts";

export const OWNERSHIP_ORIGINS = ["Created", "Adopted"] as const;

export const syncStatusProperties = () => ({
  observedGeneration: Optional(ObservedGeneration()),
  inputs: Optional(ReconciledInputs()),
  conditions: Optional(
    Conditions("Ready, Synced, Terminal and Adopted, plus ReferencesResolved when a grant is missing"),
  ),
  lastSyncedTime: Optional(
    Time(
      "Last comparison with the server that changed the status; a comparison that finds everything as it was records its time at most hourly.",
    ),
  ),
  nextCheckTime: Optional(Time("Next recheck of a Terminal condition under terminalPolicy Retry.")),
  ownership: Optional(
    Struct(
      {
        origin: Optional(OneOf(OWNERSHIP_ORIGINS, "Whether this resource created or adopted the server object.")),
        uid: Optional(Text("UID of the resource the marker names.")),
      },
      "The ownership marker found on the server object.",
    ),
  ),
});

export const ReplicaStatus = Struct(
  {
    name: NonEmptyText("Server name."),
    current: Optional(Flag("Whether the replica is current.")),
    lag: Optional(Int64("Operations the replica is behind.")),
  },
  "One replica.",
);

export const replicasList = (description: string) => ListOf(ReplicaStatus, description, { listType: "atomic" });

export const StreamServerStatus = Struct(
  {
    created: Optional(Time("When the server object was created.")),
    leader: Optional(Text("Server leading the Raft group.")),
    replicas: Optional(replicasList("Followers.")),
    currentReplicas: Optional(Int32("Members of the Raft group that are current, the leader included.")),
    messages: Optional(Int64("Messages stored.")),
    bytes: Optional(Quantity("Bytes stored.")),
    lastSequence: Optional(Int64("Sequence of the last message stored.")),
  },
  "The stream as the server reports it.",
);

/** Leader and current members: how a replicated object's Raft group stands, for `kubectl get`. */
export const raftColumns = (): PrinterColumn[] => [
  {
    name: "Leader",
    type: "string",
    jsonPath: ".status.server.leader",
    description: "Server leading the Raft group.",
  },
  {
    name: "Current",
    type: "integer",
    jsonPath: ".status.server.currentReplicas",
    description: "Members of the Raft group that are current, the leader included.",
  },
];
