// NatsConnection: Ready when its servers can be reached with its credentials.
import { setConditions, type Condition } from "../../shared/kube/conditions.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { ObjectKey } from "../../shared/kube/object.ts";
import { writeStatus } from "../../shared/kube/status.ts";
import { redactUrl } from "../../shared/nats/connection-settings.ts";
import { done, retry, skipped, withSchedules, type Outcome } from "../../shared/runtime/outcome.ts";
import { connectWith, forgetConnection, poolKey, type NatsConnectionObject } from "../../shared/nats/connection.ts";
import { waitsForServers } from "./connect-wait.ts";
import { fieldManager, type SyncDeps } from "./context.ts";
import { keepSettleCheck } from "./settle.ts";

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
  const connected = await connectWith(deps.kube, deps.pool, connection);
  const generation = connection.metadata.generation;
  const condition = connected.ok
    ? {
        type: "Ready",
        status: "True" as const,
        reason: "Connected",
        message: `connected to ${redactUrl(connected.nc.getServer())}`,
      }
    : { type: "Ready", status: "False" as const, reason: connected.reason, message: connected.message };
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
  if (!connected.ok) {
    await deps.pool.release(poolKey(connection));
    const poll = waitsForServers(conditions, deps.now()) ? [keepSettleCheck(key.namespace)] : [];
    return { outcome: withSchedules(retry(connected.message), poll), becameReady: false };
  }
  return { outcome: done(condition.message), becameReady: !wasReady };
}
