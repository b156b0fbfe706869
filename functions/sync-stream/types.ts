// The vocabulary the folders share: a JetStream resource as the API server holds it, and its
// server object as JetStream reports it.
import type { KubeObject } from "../../shared/kube/index.ts";
import type { Reference } from "../../shared/nats/index.ts";
import type { Spec, Wire } from "./config/fields.ts";
import type { AdoptionPolicy } from "./plan/plan.ts";
import type { ObjectStatus } from "./plan/status.ts";

/** A NatsStream, NatsConsumer, NatsKeyValue or NatsObjectStore. */
export type JetStreamObject = KubeObject & {
  spec: Spec & {
    connectionRef?: Reference;
    streamRef?: Reference;
    stream?: string;
    adoptionPolicy?: AdoptionPolicy;
    terminalPolicy?: "Hold" | "Retry";
    deletionPolicy?: "Retain" | "Delete";
    /** NatsStream only. */
    onLoss?: "Recreate" | "Hold";
  };
  status?: ObjectStatus;
};

/** A stream or consumer as its INFO (or a create/update reply) gives it. */
export interface ServerObject {
  config: Wire;
  info: Record<string, unknown>;
}

/** An INFO read: the object, or which half is missing (a consumer's stream, or the object itself). */
export type Observation = { found: true; observed: ServerObject } | { found: false; streamMissing: boolean };
