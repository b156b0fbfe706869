// From a connectionRef to a live NATS connection, or the reason there is none: shared by the
// functions that reach NATS through a NatsConnection (sync-stream, balance).
import type { NatsConnection } from "@nats-io/transport-node";
import type { Kube } from "../kube/client.ts";
import type { KubeObject } from "../kube/object.ts";
import { readConnectionSettings, type ConnectionSpec } from "./connection-settings.ts";
import { redactCredentials } from "../telemetry/redact.ts";
import type { ConnectionPool } from "./pool.ts";
import { isAdmitted, type Referrer } from "../kube/reference-grants.ts";
import { KINDS } from "../api/kinds.ts";
import type { Reason } from "../api/constants/reasons.ts";

export type NatsConnectionObject = KubeObject & { spec: ConnectionSpec };

export interface Reference {
  name: string;
  namespace?: string;
}

export type Resolved =
  | { ok: true; connection: NatsConnectionObject }
  | { ok: false; reason: "ConnectionNotFound" | "ReferenceNotPermitted"; message: string; noGrant: boolean };

/**
 * NatsConnections read in the last seconds, so a burst of objects on one
 * connection (a `kubectl apply` of hundreds) reads it about once: concurrent
 * reconciles share one read in flight. The NatsConnection's own events drop
 * the entry in the pod that receives them, so another pod acts on a changed
 * spec at most this long later, as a controller's informer cache would; a
 * deletion decision reads afresh. Only existence and spec come from here;
 * grants are read on every reconcile.
 */
const recentlyRead = new Map<string, { at: number; connection: Promise<NatsConnectionObject | undefined> }>();
const recentForMs = 10_000;

async function readConnection(
  kube: Kube,
  namespace: string,
  name: string,
  fresh: boolean,
): Promise<NatsConnectionObject | undefined> {
  const cacheKey = `${namespace}/${name}`;
  const hit = recentlyRead.get(cacheKey);
  if (!fresh && hit && Date.now() - hit.at < recentForMs) {
    const connection = await hit.connection;
    if (connection) return connection;
  }
  const read = kube.get<NatsConnectionObject>({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: "NatsConnection",
    namespace,
    name,
  });
  if (recentlyRead.size > 1000) recentlyRead.clear();
  // A failed read is no answer to share: later readers read again.
  recentlyRead.set(cacheKey, { at: Date.now(), connection: read.catch(() => undefined) });
  return read;
}

/** Drops what was read of a NatsConnection (its event says it changed or went away). */
export function forgetConnection(namespace: string, name: string): void {
  recentlyRead.delete(`${namespace}/${name}`);
}

/** Follows a connectionRef: grant first (cross-namespace), then existence. */
export async function resolveConnection(
  kube: Kube,
  referrer: Referrer,
  ref: Reference,
  fresh = false,
): Promise<Resolved> {
  const namespace = ref.namespace ?? referrer.namespace;
  const admitted = await isAdmitted(kube, referrer, {
    group: "nats-operator.io",
    kind: "NatsConnection",
    namespace,
    name: ref.name,
  });
  if (!admitted) {
    return {
      ok: false,
      reason: "ReferenceNotPermitted",
      message: `no NatsReferenceGrant in namespace ${namespace} admits ${referrer.kind} from ${referrer.namespace} to NatsConnection ${ref.name}`,
      noGrant: true,
    };
  }
  const connection = await readConnection(kube, namespace, ref.name, fresh);
  if (!connection) {
    return {
      ok: false,
      reason: "ConnectionNotFound",
      message: `NatsConnection ${namespace}/${ref.name} not found`,
      noGrant: false,
    };
  }
  return { ok: true, connection };
}

export const poolKey = (connection: KubeObject) => `${connection.metadata.namespace ?? ""}/${connection.metadata.name}`;

export type Connected = { ok: true; nc: NatsConnection } | { ok: false; reason: Reason; message: string };

/** The pooled connection of a NatsConnection, connecting on first use. */
export async function connectWith(
  kube: Kube,
  pool: ConnectionPool,
  connection: NatsConnectionObject,
): Promise<Connected> {
  const settings = await readConnectionSettings(kube, connection.metadata.namespace ?? "", connection.spec);
  if (!settings.ok) return { ok: false, reason: settings.reason, message: settings.message };
  try {
    return { ok: true, nc: await pool.acquire(poolKey(connection), settings.settings) };
  } catch (error) {
    const why = redactCredentials(error instanceof Error ? error.message : String(error));
    // The message reaches the status of every object granted this connection, in any namespace.
    const servers = connection.spec.servers.map(redactCredentials).join(", ");
    return {
      ok: false,
      reason: "ConnectFailed",
      message: `cannot connect to ${servers}: ${why}`,
    };
  }
}
