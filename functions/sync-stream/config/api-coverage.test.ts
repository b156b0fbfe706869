// Every config field the API schemas declare has a wire mapping here, and
// nothing here maps a field the API does not have.
import { describe, expect, it } from "@jest/globals";
import { NatsConsumerSpec } from "../../../shared/api/jetstream/nats-consumer.ts";
import { NatsKeyValueSpec } from "../../../shared/api/jetstream/nats-key-value.ts";
import { NatsObjectStoreSpec } from "../../../shared/api/jetstream/nats-object-store.ts";
import { NatsStreamSpec } from "../../../shared/api/jetstream/nats-stream.ts";
import { keyValueFields, objectStoreFields } from "./bucket-fields.ts";
import { consumerFields } from "./consumer-fields.ts";
import type { Field } from "./fields.ts";
import { streamFields } from "./stream-fields.ts";

/** Spec fields that are not server config: references, policies, names and metadata handled apart. */
const notConfig = new Set([
  "connectionRef",
  "stream",
  "streamRef",
  "adoptionPolicy",
  "terminalPolicy",
  "deletionPolicy",
  "recreateOnImmutableChange",
  "onLoss",
  "name",
  "metadata",
]);

const configFieldsOf = (schema: { properties: Record<string, unknown> }) =>
  Object.keys(schema.properties)
    .filter((k) => !notConfig.has(k))
    .sort();
const mapped = (fields: readonly Field[], extra: string[] = []) => [...fields.map((f) => f.spec), ...extra].sort();

describe("wire mappings cover the API", () => {
  it("NatsStream", () => expect(mapped(streamFields)).toEqual(configFieldsOf(NatsStreamSpec)));
  it("NatsConsumer", () => expect(mapped(consumerFields)).toEqual(configFieldsOf(NatsConsumerSpec)));
  it("NatsKeyValue", () =>
    expect(mapped(keyValueFields, ["mirror", "sources"])).toEqual(configFieldsOf(NatsKeyValueSpec)));
  it("NatsObjectStore", () => expect(mapped(objectStoreFields)).toEqual(configFieldsOf(NatsObjectStoreSpec)));
});
