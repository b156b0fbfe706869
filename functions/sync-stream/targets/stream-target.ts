// NatsStream → the stream it asks for.
import { InvalidSpecValue, specToWire, wireToSpec, type Spec } from "../config/fields.ts";
import { specFieldNames, type TargetResult } from "./kinds.ts";
import { streamDefaults, streamFields } from "../config/stream-fields.ts";

export interface StreamResourceLike {
  metadata: { name: string };
  spec: Spec & { name?: string; metadata?: Record<string, string> };
}

export const streamModelled = streamFields.map((f) => f.wire);

export function streamNameOf(resource: StreamResourceLike): string {
  return resource.spec.name ?? resource.metadata.name;
}

export function streamTarget(resource: StreamResourceLike): TargetResult {
  const name = streamNameOf(resource);
  let desired;
  try {
    desired = { ...specToWire(resource.spec, streamFields), name };
  } catch (error) {
    if (error instanceof InvalidSpecValue) return { problem: `stream ${name}: ${error.message}` };
    throw error;
  }
  return {
    kind: "NatsStream",
    stream: name,
    model: { what: `stream ${name}`, modelled: streamModelled, defaults: streamDefaults },
    desired,
    specMetadata: resource.spec.metadata,
    toSpec: (server) => wireToSpec(server, streamFields),
    configFields: specFieldNames(streamFields),
  };
}
