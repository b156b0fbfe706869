// NatsStream: a JetStream stream.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import {
  Struct,
  NonEmptyText,
  Optional,
  OneOf,
  ListOf,
  Text,
  Int64,
  Int32,
  Flag,
  StringMap,
} from "../common/fields.ts";
import { Duration, Quantity, Time } from "../common/formats.ts";
import {
  resourceSchema,
  readyColumns,
  conditionColumn,
  ageColumn,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { policyProperties, ImmutableConnectionRef, STREAM_LOSS_POLICIES } from "./policies.ts";
import { StorageType, StreamPlacement, StreamSource, SubjectTransform, Republish } from "./stream-types.ts";
import { syncStatusProperties, StreamServerStatus, replicasList, raftColumns } from "./sync-status.ts";
import { immutable, cannotUnset, serverNameImmutable } from "./rules.ts";

const LockingFlag = (field: string, description: string) =>
  Optional(Flag(`${description} Once true it cannot be set back to false.`, { rules: [cannotUnset(field)] }));

export const NatsStreamSpec = Struct(
  {
    connectionRef: ImmutableConnectionRef(),
    ...policyProperties("stream", "Retain"),
    name: Optional(NonEmptyText("Server-side stream name; metadata.name when omitted. Cannot change.")),
    description: Optional(Text("Description stored with the stream.")),
    subjects: Optional(
      ListOf(Text("A subject; wildcards allowed."), "Subjects the stream stores.", { listType: "atomic" }),
    ),
    retention: Optional(
      OneOf(["Limits", "Interest", "WorkQueue"], "When messages are removed; cannot change to or from WorkQueue.", {
        rules: [
          {
            rule: "(self == 'WorkQueue') == (oldSelf == 'WorkQueue')",
            message: "retention cannot change to or from WorkQueue",
          },
        ],
      }),
    ),
    maxConsumers: Optional(Int64("Most consumers.")),
    maxMsgs: Optional(Int64("Most messages kept.")),
    maxMsgsPerSubject: Optional(Int64("Most messages kept per subject.")),
    maxBytes: Optional(Quantity("Most bytes kept; -1 for no limit.")),
    maxMsgSize: Optional(Quantity("Largest message accepted.")),
    discard: Optional(OneOf(["Old", "New"], "At a limit, drop old messages or refuse new ones.")),
    discardNewPerSubject: Optional(Flag("Apply discard New per subject.")),
    maxAge: Optional(Duration("Oldest message kept.")),
    duplicates: Optional(Duration("Window for duplicate detection.")),
    subjectDeleteMarkerTTL: Optional(Duration("How long delete markers are kept.")),
    storage: Optional(StorageType([immutable("storage")])),
    replicas: Optional(Int32("Copies of each message.", { minimum: 1, maximum: 5 })),
    noAck: Optional(Flag("Do not acknowledge published messages.")),
    placement: Optional(StreamPlacement),
    mirror: Optional(
      StreamSource("Makes the stream a mirror of another; it cannot change, but removing it promotes the mirror.", {
        rules: [{ rule: "self == oldSelf", message: "mirror cannot change" }],
      }),
    ),
    sources: Optional(
      ListOf(StreamSource("A stream to source from."), "Streams this stream sources from.", { listType: "atomic" }),
    ),
    sealed: LockingFlag("sealed", "Seal the stream: no more messages, deletes or purges."),
    denyDelete: LockingFlag("denyDelete", "Refuse deleting messages."),
    denyPurge: LockingFlag("denyPurge", "Refuse purging the stream."),
    allowRollup: Optional(Flag("Allow rollup headers to replace a subject's messages.")),
    allowDirect: Optional(Flag("Allow direct gets from any replica.")),
    mirrorDirect: Optional(Flag("Allow direct gets from this mirror for the origin's subjects.")),
    allowAtomicPublish: Optional(Flag("Allow atomic batch publishing.")),
    allowBatchPublish: Optional(Flag("Allow batch publishing.")),
    compression: Optional(OneOf(["None", "S2"], "Compression of stored messages.")),
    firstSeq: Optional(Int64("First sequence number.", { minimum: 0 })),
    subjectTransform: Optional(SubjectTransform("Rewrites subjects on the way in.")),
    republish: Optional(Republish),
    consumerLimits: Optional(
      Struct(
        {
          inactiveThreshold: Optional(Duration("Default inactivity threshold of consumers.")),
          maxAckPending: Optional(Int64("Default maxAckPending of consumers.")),
        },
        "Defaults for the stream's consumers.",
      ),
    ),
    metadata: Optional(StringMap("Metadata stored with the stream; keys starting with _nats. are reserved.")),
    allowMsgTTL: LockingFlag("allowMsgTTL", "Allow a per-message TTL."),
    allowMsgSchedules: LockingFlag("allowMsgSchedules", "Allow scheduled messages."),
    allowMsgCounter: Optional(
      Flag("Make the stream a counter stream. Cannot change.", { rules: [immutable("allowMsgCounter")] }),
    ),
    onLoss: Optional(
      OneOf(
        STREAM_LOSS_POLICIES,
        "What to do when the stream, created or adopted before, is not found on the server: Recreate it empty " +
          "(a StreamLost Warning and status.lost record the loss first), or Hold: record the loss and leave it " +
          "gone, Ready False with reason StreamLost, until onLoss is set to Recreate.",
        { default: "Recreate" },
      ),
    ),
    persistMode: Optional(
      OneOf(["Default", "Async"], "How writes are persisted. Cannot change.", { rules: [immutable("persistMode")] }),
    ),
  },
  "The connection, lifecycle policies and stream configuration; a field left out takes the server's value.",
);
export type NatsStreamSpec = Static<typeof NatsStreamSpec>;

export const NatsStreamStatus = Struct(
  {
    ...syncStatusProperties(),
    server: Optional(StreamServerStatus),
    lost: Optional(
      Struct(
        {
          at: Time("When the stream was found missing on the server."),
          lastKnown: Struct(
            {
              messages: Optional(Int64("Messages stored at the last check.")),
              bytes: Optional(Quantity("Bytes stored at the last check.")),
              lastSequence: Optional(Int64("Sequence of the last message stored at the last check.")),
            },
            "What status.server showed at the last check before the loss.",
          ),
        },
        "The last time the stream, created or adopted before, was not found on the server.",
      ),
    ),
    transfer: Optional(
      Struct(
        {
          from: Optional(Text("NATS cluster the stream leaves.")),
          to: Optional(Text("NATS cluster the stream moves to.")),
          started: Optional(Time("When the move began.")),
          replicas: Optional(replicasList("The new replicas.")),
          consumers: Optional(
            Struct(
              {
                moved: Optional(Int32("Consumers led from the target with no move in flight.")),
                total: Optional(Int32("Consumers of the stream.")),
              },
              "Consumer progress.",
            ),
          ),
        },
        "A move to another NATS cluster in progress.",
      ),
    ),
  },
  "Observed state of the stream.",
);
export type NatsStreamStatus = Static<typeof NatsStreamStatus>;

export const NatsStreamResource = resourceSchema(KINDS.NatsStream, NatsStreamSpec, NatsStreamStatus);
export type NatsStream = Static<typeof NatsStreamResource>;

export const natsStreamDefinition: KindDefinition = {
  info: KINDS.NatsStream,
  description: "A JetStream stream, created or adopted through a NatsConnection and kept in line with spec.",
  spec: NatsStreamSpec,
  status: NatsStreamStatus,
  rules: [serverNameImmutable("stream")],
  columns: [
    { name: "Stream", type: "string", jsonPath: ".spec.name", description: "Server-side stream name." },
    ...readyColumns(),
    conditionColumn("Synced", "Whether the server config matched spec at the last check."),
    ...raftColumns(),
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", description: "Copies of each message wanted." },
    ageColumn(),
  ],
};
