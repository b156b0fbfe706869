// Ownership marker kept in the metadata of streams and consumers on the server.
import { API_GROUPS } from "../groups.ts";

export const JETSTREAM_METADATA = {
  /** Value: UID of the owning resource. */
  owner: `${API_GROUPS.jetstream}/owner`,
  /** Value: Created or Adopted; absent or unknown reads as Created. */
  origin: `${API_GROUPS.jetstream}/origin`,
} as const;

/** Metadata keys with this prefix belong to nats-server and are never user metadata. */
export const RESERVED_METADATA_PREFIX = "_nats.";
