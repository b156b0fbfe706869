// One delivery for a NatsClusterEvacuation: the finalizer first (so a deletion can cancel what
// was requested), then observe, decide and act; a deletion cancels and releases instead.
import { FINALIZERS } from "../../../shared/api/constants/finalizers.ts";
import { addFinalizer } from "../../../shared/kube/finalizers.ts";
import { guarded } from "../../../shared/kube/guarded.ts";
import { NatsApiError } from "../../../shared/nats/request.ts";
import type { ConnectionPool } from "../../../shared/nats/pool.ts";
import type { FunctionContext } from "../../../shared/runtime/function.ts";
import { conflict, done, skipped, withSchedules, type Outcome } from "../../../shared/runtime/outcome.ts";
import { actEvacuation, type MoveRequester } from "./act.ts";
import { decideEvacuation, describeStream } from "./decide.ts";
import { EVACUATION, type NatsClusterEvacuation } from "./resource.ts";
import { cancelMove, requestMove } from "../leaders/move.ts";
import { evacuationConnection, observeEvacuation } from "./observe.ts";
import { type MoveCanceller, releaseEvacuation } from "./release.ts";
import { evacuationPoll, noEvacuationPoll } from "../pass/schedule.ts";

/** Requests each move on the evacuation's pooled connection; says why one failed, if it did. */
const requestWith =
  (context: FunctionContext, pool: ConnectionPool, evacuation: NatsClusterEvacuation): MoveRequester =>
  async (move) => {
    const connected = await evacuationConnection(await context.kube(), pool, evacuation);
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
  (context: FunctionContext, pool: ConnectionPool, evacuation: NatsClusterEvacuation): MoveCanceller =>
  async (move) => {
    const connected = await evacuationConnection(await context.kube(), pool, evacuation);
    if (!connected.ok) return { failed: connected.message };
    try {
      return (await cancelMove(connected.nc, move)) ? "cancelled" : "none";
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  };

export async function handleEvacuation(
  context: FunctionContext,
  pool: ConnectionPool,
  namespace: string,
  name: string,
): Promise<Outcome> {
  const kube = await context.kube();
  const stop = [noEvacuationPoll(namespace, name)];
  const found = await kube.get<NatsClusterEvacuation>({
    apiVersion: EVACUATION.apiVersion,
    kind: EVACUATION.kind,
    namespace,
    name,
  });
  if (!found) return withSchedules(skipped(`NatsClusterEvacuation ${namespace}/${name} is gone`), stop);
  if (found.metadata.deletionTimestamp)
    return withSchedules(
      done(await releaseEvacuation(kube, await context.recorder(), found, cancelWith(context, pool, found))),
      stop,
    );

  // The finalizer goes on before any move is requested, guarded like the status claim.
  const finalized = await guarded(() => addFinalizer(kube, found, FINALIZERS.jetstream));
  if (finalized.kind === "conflict")
    return conflict("the evacuation changed while adding its finalizer; the pass is left to the next delivery");
  const evacuation = finalized.value;

  const observed = await observeEvacuation(kube, pool, evacuation);
  const now = context.now();
  const decision = decideEvacuation(observed, now);
  const acted = await actEvacuation(
    kube,
    await context.recorder(),
    evacuation,
    decision,
    requestWith(context, pool, evacuation),
    now,
  );
  const schedules = [evacuationPoll(evacuation, decision.poll)];
  if (acted.kind === "conflict")
    return withSchedules(
      conflict("the evacuation changed while deciding; the pass is left to the delivery that claimed it"),
      schedules,
    );
  return withSchedules(done(decision.summary), schedules);
}
