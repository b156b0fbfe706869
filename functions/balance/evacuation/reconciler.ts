// The NatsClusterEvacuation reconciler: the finalizer first (so a deletion can cancel what was
// requested), then observe, decide and act; a deletion cancels and releases instead.
import { FINALIZERS } from "../../../shared/api/index.ts";
import { addFinalizer, guarded, type Kube } from "../../../shared/kube/index.ts";
import { type ConnectionPool, NatsApiError } from "../../../shared/nats/index.ts";
import {
  keepPolling,
  type Poll,
  type Reconciler,
  type ScheduleDecision,
  stopPolling,
} from "../../../shared/runtime/index.ts";
import { actEvacuation, type MoveRequester } from "./act.ts";
import { decideEvacuation, describeStream, type EvacuationDecision } from "./decide.ts";
import { EVACUATION, type NatsClusterEvacuation } from "./resource.ts";
import { cancelMove, requestMove } from "../leaders/move.ts";
import { evacuationConnection, type EvacuationObserved, observeEvacuation } from "./observe.ts";
import { type MoveCanceller, releaseEvacuation } from "./release.ts";

export const evacuationScheduleId = (namespace: string, name: string) => ({ namespace, name: `${name}-evacuation` });

/** The evacuation's PingSource, owned by it, while it has moves to watch; none otherwise. */
export function evacuationPoll(evacuation: NatsClusterEvacuation, poll: Poll | false): ScheduleDecision {
  const { namespace, name } = evacuation.metadata;
  if (poll === false) return stopPolling(evacuationScheduleId(namespace, name));
  return keepPolling(
    {
      ...evacuationScheduleId(namespace, name),
      target: "balance",
      work: { kind: "NatsClusterEvacuation", namespace, name },
      scope: { kind: "object", owner: evacuation },
    },
    poll,
  );
}

export const noEvacuationPoll = (namespace: string, name: string): ScheduleDecision =>
  stopPolling(evacuationScheduleId(namespace, name));

/** Requests each move on the evacuation's pooled connection; says why one failed, if it did. */
const requestWith =
  (kube: Kube, pool: ConnectionPool, evacuation: NatsClusterEvacuation): MoveRequester =>
  async (move) => {
    const connected = await evacuationConnection(kube, pool, evacuation);
    if (!connected.ok) return `${describeStream(move)} was not moved: ${connected.message}`;
    try {
      await requestMove(connected.nc, move, evacuation.spec.to.serverTags);
      return undefined;
    } catch (error) {
      const why = error instanceof NatsApiError ? `the server refused it: ${error.message}` : String(error);
      return `${describeStream(move)} was not moved off NATS cluster ${evacuation.spec.from.cluster}: ${why}`;
    }
  };

/** Cancels each move on the evacuation's pooled connection. */
const cancelWith =
  (kube: Kube, pool: ConnectionPool, evacuation: NatsClusterEvacuation): MoveCanceller =>
  async (move) => {
    const connected = await evacuationConnection(kube, pool, evacuation);
    if (!connected.ok) return { failed: connected.message };
    try {
      return (await cancelMove(connected.nc, move)) ? "cancelled" : "none";
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  };

export function evacuation(
  pool: ConnectionPool,
): Reconciler<NatsClusterEvacuation, EvacuationObserved, EvacuationDecision> {
  return {
    kind: EVACUATION,
    schedulesOf: (key) => [noEvacuationPoll(key.namespace, key.name)],
    async finalize(found, { kube, recorder }) {
      return {
        kind: "done",
        summary: await releaseEvacuation(kube, await recorder(), found, cancelWith(kube, pool, found)),
      };
    },
    // The finalizer goes on before any move is requested, guarded like the status claim.
    async prepare(found, { kube }) {
      const finalized = await guarded(() => addFinalizer(kube, found, FINALIZERS.jetstream));
      if (finalized.kind === "conflict")
        return {
          kind: "conflict",
          message: "the evacuation changed while adding its finalizer; the pass is left to the next delivery",
        };
      return { kind: "ready", object: finalized.value };
    },
    observe: (evacuation, { kube }) => observeEvacuation(kube, pool, evacuation),
    decide: decideEvacuation,
    async act(evacuation, decision, { kube, recorder, now }) {
      const acted = await actEvacuation(
        kube,
        await recorder(),
        evacuation,
        decision,
        requestWith(kube, pool, evacuation),
        now(),
      );
      const schedules = [evacuationPoll(evacuation, decision.poll)];
      if (acted.kind === "conflict")
        return {
          kind: "conflict",
          message: "the evacuation changed while deciding; the pass is left to the delivery that claimed it",
          schedules,
        };
      return { kind: "done", summary: decision.summary, schedules };
    },
  };
}
