// NatsConsumer: a durable JetStream consumer (push when deliverSubject is set, pull otherwise).
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
import { Duration, Time } from "../common/formats.ts";
import { ObjectReference } from "../common/references.ts";
import {
  resourceSchema,
  readyColumns,
  conditionColumn,
  ageColumn,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { policyProperties } from "./policies.ts";
import { syncStatusProperties, replicasList, raftColumns } from "./sync-status.ts";
import { fixedOnceCreated, immutableUnlessRecreate, serverNameImmutable } from "./rules.ts";

const UNLESS_RECREATE = " Cannot change unless recreateOnImmutableChange is set.";

export const NatsConsumerSpec = Struct(
  {
    connectionRef: Optional(
      ObjectReference(
        "NatsConnection",
        "Connection to the NATS cluster; may be omitted with streamRef (the stream's connection is used). Cannot change.",
      ),
    ),
    stream: Optional(NonEmptyText("Server-side name of a stream that has no resource. Cannot change.")),
    streamRef: Optional(
      ObjectReference("NatsStream", "The NatsStream to consume; the consumer waits until it is Ready. Cannot change."),
    ),
    ...policyProperties("consumer", "Delete"),
    recreateOnImmutableChange: Optional(
      Flag(
        "Apply changes to fields the server cannot change by deleting and recreating the consumer (delivery state is lost).",
      ),
    ),
    name: Optional(NonEmptyText("Durable name; metadata.name when omitted. Cannot change.")),
    description: Optional(Text("Description stored with the consumer.")),
    deliverPolicy: Optional(
      OneOf(
        ["All", "Last", "New", "ByStartSequence", "ByStartTime", "LastPerSubject"],
        `Where delivery starts.${UNLESS_RECREATE}`,
      ),
    ),
    optStartSeq: Optional(Int64(`Sequence to start from with ByStartSequence.${UNLESS_RECREATE}`, { minimum: 0 })),
    optStartTime: Optional(Time(`Time to start from with ByStartTime.${UNLESS_RECREATE}`)),
    ackPolicy: Optional(OneOf(["None", "All", "Explicit"], `How messages are acknowledged.${UNLESS_RECREATE}`)),
    ackWait: Optional(Duration("How long to wait for an acknowledgement before redelivering.")),
    maxDeliver: Optional(Int64("Most delivery attempts per message.")),
    backOff: Optional(ListOf(Duration("A redelivery delay."), "Delays between redeliveries.", { listType: "atomic" })),
    filterSubject: Optional(Text("Only messages on this subject.")),
    filterSubjects: Optional(ListOf(Text("A subject."), "Only messages on these subjects.", { listType: "atomic" })),
    replayPolicy: Optional(OneOf(["Instant", "Original"], `Replay speed.${UNLESS_RECREATE}`)),
    rateLimit: Optional(Int64("Delivery rate limit in bits per second.", { minimum: 0 })),
    sampleFrequency: Optional(Text("Share of acknowledgements sampled for metrics, such as 100%.")),
    maxWaiting: Optional(Int64(`Most pull requests waiting.${UNLESS_RECREATE}`)),
    maxAckPending: Optional(Int64("Most messages delivered and not yet acknowledged.")),
    maxRequestBatch: Optional(Int64("Largest batch of one pull request.")),
    maxRequestMaxBytes: Optional(Int64("Largest byte size of one pull request.")),
    flowControl: Optional(Flag(`Flow control for push consumers.${UNLESS_RECREATE}`)),
    headersOnly: Optional(Flag("Deliver headers only.")),
    maxRequestExpires: Optional(Duration("Longest expiry of a pull request.")),
    inactiveThreshold: Optional(Duration("Inactivity after which the server removes the consumer.")),
    pinnedTTL: Optional(Duration("How long a pinned client keeps its pin without pulling.")),
    heartbeat: Optional(Duration(`Idle heartbeat interval of push consumers.${UNLESS_RECREATE}`)),
    deliverSubject: Optional(Text("Subject a push consumer delivers to; a pull consumer when omitted.")),
    deliverGroup: Optional(Text("Queue group of a push consumer.")),
    replicas: Optional(Int32("Replicas; 0 follows the stream.", { minimum: 0, maximum: 5 })),
    memoryStorage: Optional(Flag("Keep consumer state in memory; the server cannot change it.")),
    metadata: Optional(StringMap("Metadata stored with the consumer; keys starting with _nats. are reserved.")),
    pauseUntil: Optional(Time("Pause delivery until this time.")),
    priorityGroups: Optional(
      ListOf(Text("A group name."), "Priority groups of pull requests.", { listType: "atomic" }),
    ),
    priorityPolicy: Optional(
      OneOf(["None", "Overflow", "PinnedClient", "Prioritized"], "How priority groups share messages."),
    ),
  },
  "The stream, connection, lifecycle policies and consumer configuration; a field left out takes the server's value.",
  {
    rules: [
      { rule: "has(self.stream) != has(self.streamRef)", message: "set exactly one of stream and streamRef" },
      {
        rule: "has(self.connectionRef) || has(self.streamRef)",
        message: "connectionRef is required unless streamRef is set",
      },
      fixedOnceCreated("connectionRef"),
      fixedOnceCreated("stream"),
      fixedOnceCreated("streamRef"),
      ...["deliverPolicy", "ackPolicy", "replayPolicy", "optStartSeq", "optStartTime"].map((f) =>
        immutableUnlessRecreate(f),
      ),
      immutableUnlessRecreate("heartbeat", (v) => `duration(${v})`),
      immutableUnlessRecreate("flowControl"),
      immutableUnlessRecreate("maxWaiting"),
    ],
  },
);
export type NatsConsumerSpec = Static<typeof NatsConsumerSpec>;

export const NatsConsumerStatus = Struct(
  {
    ...syncStatusProperties(),
    server: Optional(
      Struct(
        {
          created: Optional(Time("When the consumer was created.")),
          leader: Optional(Text("Server leading the consumer's Raft group.")),
          replicas: Optional(replicasList("Followers.")),
          currentReplicas: Optional(Int32("Members of the Raft group that are current, the leader included.")),
        },
        "The consumer as the server reports it.",
      ),
    ),
  },
  "Observed state of the consumer.",
);
export type NatsConsumerStatus = Static<typeof NatsConsumerStatus>;

export const NatsConsumerResource = resourceSchema(KINDS.NatsConsumer, NatsConsumerSpec, NatsConsumerStatus);
export type NatsConsumer = Static<typeof NatsConsumerResource>;

export const natsConsumerDefinition: KindDefinition = {
  info: KINDS.NatsConsumer,
  description: "A durable JetStream consumer on a stream, with or without a NatsStream resource.",
  spec: NatsConsumerSpec,
  status: NatsConsumerStatus,
  rules: [serverNameImmutable("consumer")],
  columns: [
    { name: "Consumer", type: "string", jsonPath: ".spec.name", description: "Durable consumer name." },
    ...readyColumns(),
    conditionColumn("Synced", "Whether the server config matched spec at the last check."),
    ...raftColumns(),
    ageColumn(),
  ],
};
