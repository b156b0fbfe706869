// NatsKeyValue: a JetStream key-value bucket (backing stream KV_<bucket>).
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, Optional, ListOf, Text, Int32, Flag, StringMap } from "../common/fields.ts";
import { Duration, Quantity } from "../common/formats.ts";
import { resourceSchema, type KindDefinition } from "../common/kind-definition.ts";
import { policyProperties, ImmutableConnectionRef } from "./policies.ts";
import { StorageType, BucketPlacement, StreamSource, Republish } from "./stream-types.ts";
import { syncStatusProperties, StreamServerStatus } from "./sync-status.ts";
import { immutable, serverNameImmutable } from "./rules.ts";
import { bucketName, bucketReplicas, bucketColumns } from "./bucket.ts";

export const NatsKeyValueSpec = Struct(
  {
    connectionRef: ImmutableConnectionRef(),
    ...policyProperties("bucket", "Retain"),
    name: bucketName(),
    description: Optional(Text("Description stored with the bucket.")),
    maxValueSize: Optional(Quantity("Largest value accepted.")),
    maxBytes: Optional(Quantity("Most bytes kept.")),
    history: Optional(Int32("Values kept per key.", { minimum: 1, maximum: 64 })),
    ttl: Optional(Duration("How long a value is kept.")),
    limitMarkerTTL: Optional(Duration("How long markers of keys removed by limits are kept.")),
    storage: Optional(StorageType([immutable("storage")])),
    replicas: bucketReplicas(),
    placement: Optional(BucketPlacement),
    republish: Optional(Republish),
    mirror: Optional(StreamSource("Makes the bucket a mirror of another bucket.")),
    sources: Optional(
      ListOf(StreamSource("A bucket to source from."), "Buckets this bucket sources from.", { listType: "atomic" }),
    ),
    compression: Optional(Flag("Compress stored values.")),
    metadata: Optional(StringMap("Metadata stored with the bucket.")),
  },
  "The connection, lifecycle policies and bucket configuration; a field left out takes the server's value.",
);
export type NatsKeyValueSpec = Static<typeof NatsKeyValueSpec>;

export const NatsKeyValueStatus = Struct(
  { ...syncStatusProperties(), server: Optional(StreamServerStatus) },
  "Observed state of the bucket (its backing stream).",
);
export type NatsKeyValueStatus = Static<typeof NatsKeyValueStatus>;

export const NatsKeyValueResource = resourceSchema(KINDS.NatsKeyValue, NatsKeyValueSpec, NatsKeyValueStatus);
export type NatsKeyValue = Static<typeof NatsKeyValueResource>;

export const natsKeyValueDefinition: KindDefinition = {
  info: KINDS.NatsKeyValue,
  description: "A JetStream key-value bucket, stored in the stream KV_<bucket>.",
  spec: NatsKeyValueSpec,
  status: NatsKeyValueStatus,
  rules: [serverNameImmutable("bucket")],
  columns: bucketColumns(),
};
