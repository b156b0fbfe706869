// A balancer's pooled connection, followed from its NatsConnection reference.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Kube } from "../../../shared/kube/index.ts";
import {
  type ConnectionPool,
  connectWith,
  type NatsConnectionObject,
  type Resolved,
} from "../../../shared/nats/index.ts";
import type { Reason } from "../../../shared/api/index.ts";

/** A balancer's live connection and the NatsConnection behind it, or why there is none. */
export type BalancerConnection =
  { ok: true; nc: NatsConnection; connection: NatsConnectionObject } | { ok: false; reason: Reason; message: string };

/** The pooled connection of a resolved reference, with the NatsConnection it came from. */
export async function connectResolved(
  kube: Kube,
  pool: ConnectionPool,
  resolved: Resolved,
): Promise<BalancerConnection> {
  if (!resolved.ok) return resolved;
  const connected = await connectWith(kube, pool, resolved.connection);
  return connected.ok ? { ...connected, connection: resolved.connection } : connected;
}
