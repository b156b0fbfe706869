// NatsKeyValue and NatsObjectStore → the streams that back them.
import {
  bucketSpecProblem,
  keyValueFields,
  keyValueModelled,
  keyValueShapeProblem,
  keyValueSpec,
  keyValueWire,
  kvStreamPrefix,
  objectStoreFields,
  objectStoreModelled,
  objectStoreShapeProblem,
  objectStoreSpec,
  objectStoreWire,
  objectStreamPrefix,
} from "../config/bucket-fields.ts";
import { InvalidSpecValue, type Spec } from "../config/fields.ts";
import { specFieldNames, type TargetResult } from "./kinds.ts";
import { streamDefaults } from "../config/stream-fields.ts";

export interface BucketResourceLike {
  metadata: { name: string };
  spec: Spec & { name?: string; metadata?: Record<string, string> };
}

export function bucketNameOf(resource: BucketResourceLike): string {
  return resource.spec.name ?? resource.metadata.name;
}

export function keyValueTarget(resource: BucketResourceLike): TargetResult {
  const bucket = bucketNameOf(resource);
  const problem = bucketSpecProblem(bucket, resource.spec);
  if (problem) return { problem: `key-value bucket ${bucket}: ${problem}` };
  const stream = `${kvStreamPrefix}${bucket}`;
  let desired;
  try {
    desired = { ...keyValueWire(bucket, resource.spec), name: stream };
  } catch (error) {
    if (error instanceof InvalidSpecValue) return { problem: `key-value bucket ${bucket}: ${error.message}` };
    throw error;
  }
  return {
    kind: "NatsKeyValue",
    stream,
    model: {
      what: `key-value bucket ${bucket}`,
      modelled: keyValueModelled,
      defaults: streamDefaults,
      shapeProblem: (server) => keyValueShapeProblem(stream, server),
    },
    desired,
    specMetadata: resource.spec.metadata,
    toSpec: (server) => keyValueSpec(bucket, server),
    configFields: [...specFieldNames(keyValueFields), "mirror", "sources"],
  };
}

export function objectStoreTarget(resource: BucketResourceLike): TargetResult {
  const bucket = bucketNameOf(resource);
  const problem = bucketSpecProblem(bucket, resource.spec);
  if (problem) return { problem: `object store ${bucket}: ${problem}` };
  const stream = `${objectStreamPrefix}${bucket}`;
  let desired;
  try {
    desired = { ...objectStoreWire(bucket, resource.spec), name: stream };
  } catch (error) {
    if (error instanceof InvalidSpecValue) return { problem: `object store ${bucket}: ${error.message}` };
    throw error;
  }
  return {
    kind: "NatsObjectStore",
    stream,
    model: {
      what: `object store ${bucket}`,
      modelled: objectStoreModelled,
      defaults: streamDefaults,
      shapeProblem: (server) => objectStoreShapeProblem(stream, bucket, server),
    },
    desired,
    specMetadata: resource.spec.metadata,
    toSpec: (server) => objectStoreSpec(server),
    configFields: specFieldNames(objectStoreFields),
  };
}
