// The four JetStream kinds sync-stream keeps, as the planners see them.
import type { Field, Spec, Wire } from "../config/fields.ts";
import type { ObjectModel } from "../plan/plan.ts";

export const jetstreamApiVersion = "jetstream.nats-operator.io/v1beta1";
export const coreApiVersion = "nats-operator.io/v1beta1";

export type ObjectKind = "NatsStream" | "NatsConsumer" | "NatsKeyValue" | "NatsObjectStore";
export const objectKinds: readonly ObjectKind[] = ["NatsStream", "NatsConsumer", "NatsKeyValue", "NatsObjectStore"];

export function isObjectKind(kind: string): kind is ObjectKind {
  return (objectKinds as readonly string[]).includes(kind);
}

/** Everything the reconciler needs to know about one resource's server object. */
export interface Target {
  kind: ObjectKind;
  model: ObjectModel;
  /** The stream that holds it (the stream itself, the consumer's stream, KV_/OBJ_ bucket streams). */
  stream: string;
  /** The consumer name, for consumers. */
  consumer?: string;
  desired: Wire;
  specMetadata: Record<string, string> | undefined;
  /** Server config → spec fields, for Adopt and late initialisation. */
  toSpec(server: Wire): Spec;
  /** Spec fields the server config can fill in. */
  configFields: readonly string[];
}

/** A spec that cannot be turned into a config: Terminal Rejected without asking the server. */
export interface SpecProblem {
  problem: string;
}

export type TargetResult = Target | SpecProblem;

export function isSpecProblem(result: TargetResult): result is SpecProblem {
  return "problem" in result;
}

export function specFieldNames(fields: readonly Field[]): string[] {
  return fields.map((f) => f.spec);
}
