// NatsObjectStore: a JetStream object-store bucket (backing stream OBJ_<bucket>).
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, Optional, Text, Flag, StringMap } from "../common/fields.ts";
import { Duration, Quantity } from "../common/formats.ts";
import { resourceSchema, type KindDefinition } from "../common/kind-definition.ts";
import { policyProperties, ImmutableConnectionRef } from "./policies.ts";
import { StorageType, BucketPlacement } from "./stream-types.ts";
import { syncStatusProperties, StreamServerStatus } from "./sync-status.ts";
import { immutable, serverNameImmutable } from "./rules.ts";
import { bucketName, bucketReplicas, bucketColumns } from "./bucket.ts";

export const NatsObjectStoreSpec = Struct(
  {
    connectionRef: ImmutableConnectionRef(),
    ...policyProperties("bucket", "Retain"),
    name: bucketName(),
    description: Optional(Text("Description stored with the bucket.")),
    ttl: Optional(Duration("How long an object is kept.")),
    maxBytes: Optional(Quantity("Most bytes kept.")),
    storage: Optional(StorageType([immutable("storage")])),
    replicas: bucketReplicas(),
    placement: Optional(BucketPlacement),
    compression: Optional(Flag("Compress stored objects.")),
    metadata: Optional(StringMap("Metadata stored with the bucket.")),
  },
  "The connection, lifecycle policies and bucket configuration; a field left out takes the server's value.",
);
export type NatsObjectStoreSpec = Static<typeof NatsObjectStoreSpec>;

export const NatsObjectStoreStatus = Struct(
  { ...syncStatusProperties(), server: Optional(StreamServerStatus) },
  "Observed state of the bucket (its backing stream).",
);
export type NatsObjectStoreStatus = Static<typeof NatsObjectStoreStatus>;

export const NatsObjectStoreResource = resourceSchema(
  KINDS.NatsObjectStore,
  NatsObjectStoreSpec,
  NatsObjectStoreStatus,
);
export type NatsObjectStore = Static<typeof NatsObjectStoreResource>;

export const natsObjectStoreDefinition: KindDefinition = {
  info: KINDS.NatsObjectStore,
  description: "A JetStream object-store bucket, stored in the stream OBJ_<bucket>.",
  spec: NatsObjectStoreSpec,
  status: NatsObjectStoreStatus,
  rules: [serverNameImmutable("bucket")],
  columns: bucketColumns(),
};
