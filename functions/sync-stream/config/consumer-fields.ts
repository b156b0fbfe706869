// NatsConsumer spec ↔ nats-server ConsumerConfig.
import { duration, field, listOf, oneOf, type Field, type Wire } from "./fields.ts";

export const consumerFields: readonly Field[] = [
  field("description"),
  field(
    "deliverPolicy",
    "deliver_policy",
    oneOf({
      All: "all",
      Last: "last",
      New: "new",
      ByStartSequence: "by_start_sequence",
      ByStartTime: "by_start_time",
      LastPerSubject: "last_per_subject",
    }),
  ),
  field("optStartSeq"),
  field("optStartTime"),
  field("ackPolicy", "ack_policy", oneOf({ None: "none", All: "all", Explicit: "explicit" })),
  field("ackWait", "ack_wait", duration),
  field("maxDeliver"),
  field("backOff", "backoff", listOf(duration)),
  field("filterSubject"),
  field("filterSubjects"),
  field("replayPolicy", "replay_policy", oneOf({ Instant: "instant", Original: "original" })),
  field("rateLimit", "rate_limit_bps"),
  field("sampleFrequency", "sample_freq"),
  field("maxWaiting"),
  field("maxAckPending"),
  field("maxRequestBatch", "max_batch"),
  field("maxRequestMaxBytes", "max_bytes"),
  field("flowControl"),
  field("headersOnly"),
  field("maxRequestExpires", "max_expires", duration),
  field("inactiveThreshold", "inactive_threshold", duration),
  field("pinnedTTL", "priority_timeout", duration),
  field("heartbeat", "idle_heartbeat", duration),
  field("deliverSubject"),
  field("deliverGroup"),
  field("replicas", "num_replicas"),
  field("memoryStorage", "mem_storage"),
  field("pauseUntil"),
  field("priorityGroups"),
  field(
    "priorityPolicy",
    "priority_policy",
    oneOf({ None: "none", Overflow: "overflow", PinnedClient: "pinned_client", Prioritized: "prioritized" }),
  ),
];

/** Keys nats-server cannot change on an existing consumer. */
export const consumerImmutableKeys = [
  "deliver_policy",
  "mem_storage",
  "opt_start_seq",
  "opt_start_time",
  "ack_policy",
  "replay_policy",
  "idle_heartbeat",
  "flow_control",
  "max_waiting",
] as const;

/** What nats-server fills in for a consumer field a config leaves out. */
export function consumerDefaults(server: Wire): Wire {
  const acked = server.ack_policy !== undefined && server.ack_policy !== "none";
  const pull = server.deliver_subject === undefined || server.deliver_subject === "";
  return {
    deliver_policy: "all",
    ack_policy: "none",
    replay_policy: "instant",
    max_deliver: -1,
    priority_policy: "none",
    ...(acked ? { ack_wait: 30e9, max_ack_pending: 1000 } : {}),
    ...(pull ? { max_waiting: 512 } : {}),
  };
}
