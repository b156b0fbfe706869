// The ownership marker a resource leaves in the metadata of the server object.
import { JETSTREAM_METADATA, RESERVED_METADATA_PREFIX } from "../../../shared/api/index.ts";

export const markerOwnerKey: string = JETSTREAM_METADATA.owner;
export const markerOriginKey: string = JETSTREAM_METADATA.origin;
export const reservedPrefix = RESERVED_METADATA_PREFIX;

export type Origin = "Created" | "Adopted";

export interface Marker {
  owner: string | undefined;
  origin: Origin;
}

export function isReservedMetadataKey(key: string): boolean {
  return key.startsWith(reservedPrefix);
}

export function readMarker(metadata: unknown): Marker {
  const m = (metadata ?? {}) as Record<string, string>;
  return { owner: m[markerOwnerKey] || undefined, origin: m[markerOriginKey] === "Adopted" ? "Adopted" : "Created" };
}

/** Metadata a user put there: neither the server's reserved keys nor our marker. */
export function userMetadata(metadata: unknown): Record<string, string> {
  const m = (metadata ?? {}) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(m).filter(([k]) => !isReservedMetadataKey(k) && k !== markerOwnerKey && k !== markerOriginKey),
  );
}

export function withMarker(user: Record<string, string>, uid: string, origin: Origin): Record<string, string> {
  return { ...userMetadata(user), [markerOwnerKey]: uid, [markerOriginKey]: origin };
}
