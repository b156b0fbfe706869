// The JetStream side of one NatsConnection, as the reconcilers use it: an interface of our own, so
// the object reconcile can be driven in unit tests by a fake, and its NATS implementation.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Kube } from "../../../shared/kube/index.ts";
import { type ConnectionPool, connectWith, type NatsConnectionObject } from "../../../shared/nats/index.ts";
import type { Wire } from "../config/fields.ts";
import type { Target } from "../targets/kinds.ts";
import type { Observation, ServerObject } from "../types.ts";
import { type JetStreamAccount, readAccount } from "./account.ts";
import { createObject, deleteObject, updateObject } from "./act.ts";
import { observe } from "./observe.ts";
import { listConsumers, type ListedConsumer } from "./transfer.ts";
import type { Reason } from "../../../shared/api/index.ts";

export interface JetStreamServer {
  /** `$JS.API` INFO of the target. */
  info(target: Target): Promise<Observation>;
  create(target: Target, config: Wire): Promise<ServerObject>;
  update(target: Target, config: Wire): Promise<ServerObject>;
  /** Deletes the server object; false when it was already gone. */
  remove(target: Target): Promise<boolean>;
  /** Every consumer of a stream (paged `CONSUMER.LIST`). */
  consumers(stream: string): Promise<ListedConsumer[]>;
  /** The account's JetStream (`$JS.API.INFO`), asked before a key-value bucket is written (J20). */
  account(): Promise<JetStreamAccount>;
}

/** Reaching a NatsConnection's servers: the JetStream side, or why not. */
export type Reached = { ok: true; server: JetStreamServer } | { ok: false; reason: Reason; message: string };

/** How the object reconciler reaches JetStream through a NatsConnection. */
export type ConnectJetStream = (kube: Kube, connection: NatsConnectionObject) => Promise<Reached>;

export function natsJetStream(nc: NatsConnection): JetStreamServer {
  return {
    info: (target) => observe(nc, target),
    create: (target, config) => createObject(nc, target, config),
    update: (target, config) => updateObject(nc, target, config),
    remove: (target) => deleteObject(nc, target),
    consumers: (stream) => listConsumers(nc, stream),
    account: () => readAccount(nc),
  };
}

/** Through the process's connection pool (one NATS connection per NatsConnection). */
export function pooledJetStream(pool: ConnectionPool): ConnectJetStream {
  return async (kube, connection) => {
    const connected = await connectWith(kube, pool, connection);
    return connected.ok ? { ok: true, server: natsJetStream(connected.nc) } : connected;
  };
}
