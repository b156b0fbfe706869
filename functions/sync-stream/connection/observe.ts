// Whether a NatsConnection's servers answer now. A pooled client keeps reconnecting after its
// servers go away, so it is asked for a round trip: without one it is Disconnected (and kept, to
// reconnect by itself); a connect that fails is dropped (by act).
import type { NatsConnection } from "@nats-io/transport-node";
import type { Kube } from "../../../shared/kube/index.ts";
import { type ConnectionPool, connectWith } from "../../../shared/nats/index.ts";
import { redactCredentials } from "../../../shared/telemetry/index.ts";
import type { ConnectionWithStatus } from "../connect-wait.ts";
import type { Observed, Reach } from "./types.ts";

/** A server that takes longer than this to answer a PING counts as gone. */
const roundTripTimeoutMs = 2_000;

function roundTrip(nc: NatsConnection): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no answer")), roundTripTimeoutMs);
    nc.rtt().then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export async function observeConnection(
  connection: ConnectionWithStatus,
  kube: Kube,
  pool: ConnectionPool,
): Promise<Observed> {
  const base = {
    namespace: connection.metadata.namespace ?? "",
    generation: connection.metadata.generation,
    conditions: connection.status?.conditions,
  };
  const connected = await connectWith(kube, pool, connection);
  if (!connected.ok)
    return { ...base, reach: { ok: false, reason: connected.reason, message: connected.message }, dropClient: true };
  return { ...base, reach: await reach(connection, connected.nc), dropClient: false };
}

async function reach(connection: ConnectionWithStatus, nc: NatsConnection): Promise<Reach> {
  const servers = connection.spec.servers.map(redactCredentials).join(", ");
  try {
    await roundTrip(nc);
  } catch {
    return { ok: false, reason: "Disconnected", message: `lost its servers; reconnecting to ${servers}` };
  }
  return { ok: true, reason: "Connected", message: `connected to ${redactCredentials(nc.getServer())}` };
}
