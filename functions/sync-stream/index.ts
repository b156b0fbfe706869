// sync-stream: keeps NatsStream, NatsConsumer, NatsKeyValue and NatsObjectStore
// in line with JetStream through their NatsConnection, and reports
// NatsConnection readiness.
import { keyOf, type ObjectKey } from "../../shared/kube/object.ts";
import { createConnectionPool } from "../../shared/nats/pool.ts";
import type { FunctionContext, OperatorFunction } from "../../shared/runtime/function.ts";
import { done, retry, skipped, withSchedules, type Outcome } from "../../shared/runtime/outcome.ts";
import type { SyncDeps } from "./context.ts";
import { isResyncDelivery } from "../../shared/runtime/resync.ts";
import { allObjects, referrersInto, usersOfConnection } from "./objects/dependents.ts";
import { inBatches } from "../../shared/runtime/in-batches.ts";
import { isObjectKind } from "./targets/kinds.ts";
import type { JetStreamObject } from "./targets/placement.ts";
import { type ConnectionWithStatus, reconcileConnection } from "./connection/reconcile-connection.ts";
import { waitsForServers } from "./connection/connect-wait.ts";
import { KINDS } from "../../shared/api/kinds.ts";
import { payloadOf } from "./objects/first-sight.ts";
import { reconcileObject, type Trigger } from "./objects/reconcile-object.ts";
import { settleTickOf, stopSettleCheck } from "./settle.ts";

/** Objects checked at once by a settle tick or a wake-up. */
const parallelChecks = 8;

const pool = createConnectionPool();

async function depsOf(context: FunctionContext): Promise<SyncDeps> {
  return {
    kube: await context.kube(),
    pool,
    log: context.log,
    now: () => context.now(),
    recorder: () => context.recorder(),
  };
}

/** Re-checks objects after something they depend on changed; failures stay in their status. */
async function recheck(deps: SyncDeps, keys: readonly ObjectKey[], trigger: Trigger): Promise<Outcome[]> {
  return inBatches(keys, parallelChecks, async (key) => {
    try {
      return (await reconcileObject(deps, key, trigger)).outcome;
    } catch (error) {
      deps.log.warn({ err: error, object: `${key.kind} ${key.namespace}/${key.name}` }, "re-check failed");
      return retry(
        `re-check of ${key.kind} ${key.namespace}/${key.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
}

/**
 * The answer to an event whose handling re-checked dependents: its own, unless
 * a re-check needs another try, in which case the event is redelivered (with
 * the Broker's backoff) so the re-check runs again. Either way it carries the
 * schedules the re-checks asked for.
 */
function withRechecks(own: Outcome, outcomes: readonly Outcome[]): Outcome {
  const failed = outcomes.filter((o) => o.kind === "retry" || o.kind === "conflict");
  const answer =
    failed.length === 0
      ? own
      : retry(`${failed.length} of ${outcomes.length} dependent objects need another try: ${summary(outcomes)}`);
  return withSchedules(answer, ...schedulesOf(outcomes));
}

const schedulesOf = (outcomes: readonly Outcome[]) => outcomes.map((o) => o.schedules ?? []);

function summary(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(", ") || "nothing";
}

/** The namespace's NatsConnections still re-checked on the settle tick (connect-wait.ts). */
async function waitingConnections(deps: SyncDeps, namespace: string): Promise<ObjectKey[]> {
  const connections = await deps.kube.list<ConnectionWithStatus>({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: KINDS.NatsConnection.kind,
    namespace,
  });
  return connections.filter((c) => waitsForServers(c.status?.conditions, deps.now())).map((c) => keyOf(c));
}

/** Re-checks connections waiting for their servers, and the users of those that came up. */
async function recheckConnections(deps: SyncDeps, keys: readonly ObjectKey[]): Promise<Outcome[]> {
  const checked = await inBatches(keys, parallelChecks, (key) => reconcileConnection(deps, key));
  const cameUp = keys.filter((_, i) => checked[i]?.becameReady);
  const users = await Promise.all(cameUp.map((key) => usersOfConnection(deps.kube, key.namespace, key.name)));
  return [...checked.map((c) => c.outcome), ...(await recheck(deps, users.flat(), "event"))];
}

/**
 * Re-reads the connections waiting for their servers and the objects whose Raft group was
 * unsettled; drops the schedule once neither is left.
 */
async function settleCheck(deps: SyncDeps, namespace: string): Promise<Outcome> {
  const connectionOutcomes = await recheckConnections(deps, await waitingConnections(deps, namespace));
  const unsettled = (await allObjects(deps.kube, namespace)).filter(isUnsettledStatus);
  const outcomes = [
    ...connectionOutcomes,
    ...(await recheck(
      deps,
      unsettled.map((o) => keyOf(o)),
      "tick",
    )),
  ];
  const still = (await allObjects(deps.kube, namespace))
    .filter((o) => unsettled.some((u) => u.metadata.uid === o.metadata.uid))
    .filter(isUnsettledStatus);
  const waiting = await waitingConnections(deps, namespace);
  // Last, so that it wins over the re-checks: nothing is unsettled or waiting any more.
  return withSchedules(
    done(
      `settle check of ${namespace}: ${summary(outcomes)}; ${still.length} still unsettled, ${waiting.length} connections waiting`,
    ),
    ...schedulesOf(outcomes),
    still.length === 0 && waiting.length === 0 ? [stopSettleCheck(namespace)] : [],
  );
}

/** What the status shows: a move in flight, or a replicated group without a leader or with a member behind. */
function isUnsettledStatus(o: JetStreamObject): boolean {
  if (o.status?.transfer) return true;
  const server = o.status?.server;
  return (
    server !== undefined && server.replicas !== undefined && (!server.leader || server.replicas.some((r) => !r.current))
  );
}

export const syncStream: OperatorFunction = {
  name: "sync-stream",
  kinds: [
    "NatsConnection.nats-operator.io",
    "NatsReferenceGrant.nats-operator.io",
    "NatsStream.jetstream.nats-operator.io",
    "NatsConsumer.jetstream.nats-operator.io",
    "NatsKeyValue.jetstream.nats-operator.io",
    "NatsObjectStore.jetstream.nats-operator.io",
  ],
  handlesPings: true,
  // JetStream drifts without an event: the resync tick compares every object with its server.
  checksDrift: true,
  owns: [
    "NatsConnection.nats-operator.io",
    "NatsStream.jetstream.nats-operator.io",
    "NatsConsumer.jetstream.nats-operator.io",
    "NatsKeyValue.jetstream.nats-operator.io",
    "NatsObjectStore.jetstream.nats-operator.io",
  ],

  async handle(context, cloudEvent) {
    const event = context.event;
    const deps = await depsOf(context);
    if (event.source === "ping") {
      const namespace = settleTickOf(event.work, event.pingSource);
      if (namespace === undefined) return skipped("tick is not a sync-stream settle check");
      return settleCheck(deps, namespace);
    }
    const key: ObjectKey = event.ref;
    if (key.kind === "NatsConnection") {
      const result = await reconcileConnection(deps, key);
      // Users learn at once that their connection came up (retry now) or went away (ConnectionNotFound).
      if (!result.becameReady && !result.gone) return result.outcome;
      return withRechecks(
        result.outcome,
        await recheck(
          deps,
          await usersOfConnection(deps.kube, key.namespace, key.name),
          result.gone ? "tick" : "event",
        ),
      );
    }
    if (key.kind === "NatsReferenceGrant") {
      const outcomes = await recheck(deps, await referrersInto(deps.kube, key.namespace), "tick");
      return withRechecks(done(`grant change in ${key.namespace}: ${summary(outcomes)}`), outcomes);
    }
    if (!isObjectKind(key.kind)) return skipped(`sync-stream does not handle ${key.kind}`);
    // The resync tick's delivery compares the object with its server even if it was checked moments ago.
    const trigger: Trigger = isResyncDelivery(cloudEvent) ? "tick" : "event";
    return (await reconcileObject(deps, key, trigger, payloadOf(event, cloudEvent.data))).outcome;
  },

  async shutdown() {
    await pool.closeAll();
  },
};

export const handle = syncStream.handle;
