// NatsConnection's writes: drop a client that failed to connect, write Ready, tell the users of a
// connection that came up.
import { type Kube, KubeRequestError, writeStatus } from "../../../shared/kube/index.ts";
import { type ConnectionPool, poolKey } from "../../../shared/nats/index.ts";
import type { Acted } from "../../../shared/runtime/index.ts";
import type { ConnectionWithStatus } from "../connect-wait.ts";
import { fieldManager } from "../context.ts";
import { usersOfConnection } from "../objects/related.ts";
import type { Decision } from "./types.ts";

export async function actOnConnection(
  connection: ConnectionWithStatus,
  decision: Decision,
  kube: Kube,
  pool: ConnectionPool,
): Promise<Acted> {
  if (decision.dropClient) await pool.release(poolKey(connection));
  try {
    // Not guarded: only sync-stream writes a NatsConnection's status, and the last reach is the one to show.
    await writeStatus(kube, connection, decision.status, fieldManager);
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
  }
  if (decision.answer.kind === "again") return { kind: "again", message: decision.answer.message };
  const namespace = connection.metadata.namespace ?? "";
  // Users learn at once that their connection came up (they retry now, not after their backoff).
  const wake = decision.becameReady ? await usersOfConnection(kube, namespace, connection.metadata.name) : [];
  return { kind: "done", summary: decision.answer.message, ...(wake.length > 0 ? { wake } : {}) };
}
