// NatsConsumer → the durable consumer it asks for.
import { consumerDefaults, consumerFields, consumerImmutableKeys } from "../config/consumer-fields.ts";
import { InvalidSpecValue, isZero, specToWire, wireToSpec, type Spec, type Wire } from "../config/fields.ts";
import { specFieldNames, type TargetResult } from "./kinds.ts";

export interface ConsumerResourceLike {
  metadata: { name: string };
  spec: Spec & { name?: string; metadata?: Record<string, string>; recreateOnImmutableChange?: boolean };
}

export const consumerModelled = consumerFields.map((f) => f.wire);

export function consumerNameOf(resource: ConsumerResourceLike): string {
  return resource.spec.name ?? resource.metadata.name;
}

const isPush = (config: Wire) => !isZero(config.deliver_subject);

/** `stream` is the server-side stream name (spec.stream, or the referenced NatsStream's). */
export function consumerTarget(resource: ConsumerResourceLike, stream: string): TargetResult {
  const name = consumerNameOf(resource);
  let desired: Wire;
  try {
    desired = { ...specToWire(resource.spec, consumerFields), durable_name: name, name };
  } catch (error) {
    if (error instanceof InvalidSpecValue) return { problem: `consumer ${stream}/${name}: ${error.message}` };
    throw error;
  }
  return {
    kind: "NatsConsumer",
    stream,
    consumer: name,
    model: {
      what: `consumer ${stream}/${name}`,
      modelled: consumerModelled,
      defaults: consumerDefaults,
      immutable: consumerImmutableKeys,
      otherImmutableChanges: (wanted, server) => {
        // Only a spec that states its mode can switch it; adoption keeps what is there.
        if (!("deliver_subject" in wanted) && !isPush(server)) return [];
        return isPush(wanted) === isPush(server) ? [] : [isPush(server) ? "push to pull" : "pull to push"];
      },
      recreateOnImmutableChange: resource.spec.recreateOnImmutableChange === true,
    },
    desired,
    specMetadata: resource.spec.metadata,
    toSpec: (server) => wireToSpec(server, consumerFields),
    configFields: specFieldNames(consumerFields),
  };
}
