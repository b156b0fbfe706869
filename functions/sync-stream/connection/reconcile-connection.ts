// NatsConnection: Ready when its servers can be reached with its credentials.
import type { NatsConnection } from "@nats-io/transport-node";
import { setConditions, type Condition } from "../../../shared/kube/conditions.ts";
import { KubeRequestError } from "../../../shared/kube/errors.ts";
import type { ObjectKey } from "../../../shared/kube/object.ts";
import { writeStatus } from "../../../shared/kube/status.ts";
import { redactUrl } from "../../../shared/nats/connection-settings.ts";
import { done, retry, skipped, withSchedules, type Outcome } from "../../../shared/runtime/outcome.ts";
import { connectWith, forgetConnection, poolKey, type NatsConnectionObject } from "../../../shared/nats/connection.ts";
import { waitsForServers } from "./connect-wait.ts";
import { fieldManager, type SyncDeps } from "../context.ts";
import { keepSettleCheck } from "../settle.ts";

export type ConnectionWithStatus = NatsConnectionObject & {
  status?: { observedGeneration?: number; conditions?: Condition[] };
};

export interface ConnectionResult {
  outcome: Outcome;
  becameReady: boolean;
  /** The NatsConnection is gone or being deleted. */
  gone?: boolean;
}

export async function reconcileConnection(deps: SyncDeps, key: ObjectKey): Promise<ConnectionResult> {
  forgetConnection(key.namespace, key.name);
  const connection = await deps.kube.get<ConnectionWithStatus>(key);
  if (!connection || connection.metadata.deletionTimestamp) {
    await deps.pool.release(`${key.namespace}/${key.name}`);
    return {
      outcome: skipped("NatsConnection is gone; its NATS connection is closed"),
      becameReady: false,
      gone: true,
    };
  }
  const wasReady = connection.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
  const reached = await reach(deps, connection);
  const generation = connection.metadata.generation;
  const condition = {
    type: "Ready",
    status: reached.ok ? ("True" as const) : ("False" as const),
    reason: reached.reason,
    message: reached.message,
  };
  const conditions = setConditions(
    connection.status?.conditions,
    [{ ...condition, ...(generation === undefined ? {} : { observedGeneration: generation }) }],
    deps.now(),
  );
  try {
    await writeStatus(deps.kube, connection, { conditions, observedGeneration: generation }, fieldManager);
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
  }
  if (!reached.ok) {
    const poll = waitsForServers(conditions, deps.now()) ? [keepSettleCheck(key.namespace)] : [];
    return { outcome: withSchedules(retry(reached.message), poll), becameReady: false };
  }
  return { outcome: done(reached.message), becameReady: !wasReady };
}

type Reached = { ok: boolean; reason: string; message: string };

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

/**
 * Whether the connection's servers answer now. A pooled client keeps reconnecting after its
 * servers go away, so it is asked for a round trip: without one it is Disconnected (and kept, to
 * reconnect by itself); a connect that fails is released.
 */
async function reach(deps: SyncDeps, connection: ConnectionWithStatus): Promise<Reached> {
  const connected = await connectWith(deps.kube, deps.pool, connection);
  if (!connected.ok) {
    await deps.pool.release(poolKey(connection));
    return { ok: false, reason: connected.reason, message: connected.message };
  }
  const servers = connection.spec.servers.map(redactUrl).join(", ");
  try {
    await roundTrip(connected.nc);
  } catch {
    return { ok: false, reason: "Disconnected", message: `lost its servers; reconnecting to ${servers}` };
  }
  return { ok: true, reason: "Connected", message: `connected to ${redactUrl(connected.nc.getServer())}` };
}
