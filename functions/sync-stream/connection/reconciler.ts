// The NatsConnection reconciler: Ready `Connected` after a round trip to a server; `Disconnected`
// when the pooled client lost its servers and is reconnecting; `ConnectFailed`, `SecretNotFound`,
// `InvalidSecret`. Its settle tick re-checks the connections waiting for their servers; one gone
// closes its client and tells its users.
import { KINDS } from "../../../shared/api/index.ts";
import { type ConnectionPool, forgetConnection } from "../../../shared/nats/index.ts";
import type { Reconciler, TickRelated } from "../../../shared/runtime/index.ts";
import type { ConnectionWithStatus } from "../connect-wait.ts";
import { usersOfConnection, waitingConnections } from "../objects/related.ts";
import { settleTickOf } from "../settle.ts";
import { actOnConnection } from "./act.ts";
import { decide } from "./decide.ts";
import { observeConnection } from "./observe.ts";
import type { Decision, Observed } from "./types.ts";

/** The settle tick: the namespace's connections still waiting for their servers. */
const waitingOnSettleTick: TickRelated = {
  tick: true,
  async map(work, { kube, pingSource, now }) {
    const namespace = settleTickOf(work, pingSource);
    return namespace === undefined ? undefined : waitingConnections(kube, namespace, now());
  },
};

export function connectionReconciler(pool: ConnectionPool): Reconciler<ConnectionWithStatus, Observed, Decision> {
  return {
    kind: KINDS.NatsConnection,
    related: [waitingOnSettleTick],
    async load(key, { kube }) {
      // Whatever changed (spec, Secret reference), objects resolve the connection afresh.
      forgetConnection(key.namespace, key.name);
      return kube.get<ConnectionWithStatus>(key);
    },
    async gone(key, { kube }) {
      await pool.release(`${key.namespace}/${key.name}`);
      // Its users learn at once that it went away (ConnectionNotFound).
      const wake = await usersOfConnection(kube, key.namespace, key.name);
      return { kind: "skipped", reason: "NatsConnection is gone; its NATS connection is closed", wake };
    },
    observe: (connection, { kube }) => observeConnection(connection, kube, pool),
    decide,
    act: (connection, decision, { kube }) => actOnConnection(connection, decision, kube, pool),
  };
}
