// NatsStream spec ↔ nats-server StreamConfig.
import { duration, field, listOf, oneOf, quantity, struct, type Field, type Wire } from "./fields.ts";

export const subjectTransformFields: readonly Field[] = [field("source", "src"), field("destination", "dest")];

export const republishFields: readonly Field[] = [
  field("source", "src"),
  field("destination", "dest"),
  field("headersOnly"),
];

export const placementFields: readonly Field[] = [field("cluster"), field("tags"), field("preferred")];

export const streamSourceFields: readonly Field[] = [
  field("name"),
  field("optStartSeq"),
  field("optStartTime"),
  field("filterSubject"),
  field("subjectTransforms", "subject_transforms", listOf(struct(subjectTransformFields))),
  field("external", "external", struct([field("apiPrefix", "api"), field("deliverPrefix", "deliver")])),
  field("consumer", "consumer", struct([field("name"), field("deliverSubject")])),
];

export const storage = oneOf({ File: "file", Memory: "memory" });

export const streamFields: readonly Field[] = [
  field("description"),
  field("subjects"),
  field("retention", "retention", oneOf({ Limits: "limits", Interest: "interest", WorkQueue: "workqueue" })),
  field("maxConsumers"),
  field("maxMsgs"),
  field("maxMsgsPerSubject"),
  field("maxBytes", "max_bytes", quantity),
  field("maxMsgSize", "max_msg_size", quantity),
  field("discard", "discard", oneOf({ Old: "old", New: "new" })),
  field("discardNewPerSubject"),
  field("maxAge", "max_age", duration),
  field("duplicates", "duplicate_window", duration),
  field("subjectDeleteMarkerTTL", "subject_delete_marker_ttl", duration),
  field("storage", "storage", storage),
  field("replicas", "num_replicas"),
  field("noAck"),
  field("placement", "placement", struct(placementFields)),
  field("mirror", "mirror", struct(streamSourceFields)),
  field("sources", "sources", listOf(struct(streamSourceFields))),
  field("sealed"),
  field("denyDelete"),
  field("denyPurge"),
  field("allowRollup", "allow_rollup_hdrs"),
  field("allowDirect"),
  field("mirrorDirect"),
  field("allowAtomicPublish", "allow_atomic"),
  field("allowBatchPublish", "allow_batched"),
  field("compression", "compression", oneOf({ None: "none", S2: "s2" })),
  field("firstSeq"),
  field("subjectTransform", "subject_transform", struct(subjectTransformFields)),
  field("republish", "republish", struct(republishFields)),
  field(
    "consumerLimits",
    "consumer_limits",
    struct([field("inactiveThreshold", "inactive_threshold", duration), field("maxAckPending")]),
  ),
  field("allowMsgTTL", "allow_msg_ttl"),
  field("allowMsgSchedules"),
  field("allowMsgCounter"),
  field("persistMode", "persist_mode", oneOf({ Default: "default", Async: "async" })),
];

const twoMinutes = 120e9;

/** What nats-server fills in for a stream field a config leaves out. */
export function streamDefaults(server: Wire): Wire {
  const maxAge = typeof server.max_age === "number" ? server.max_age : 0;
  return {
    retention: "limits",
    max_consumers: -1,
    max_msgs: -1,
    max_bytes: -1,
    max_msgs_per_subject: -1,
    max_msg_size: -1,
    discard: "old",
    storage: "file",
    num_replicas: 1,
    duplicate_window: maxAge > 0 && maxAge < twoMinutes ? maxAge : twoMinutes,
    compression: "none",
    persist_mode: "default",
  };
}
