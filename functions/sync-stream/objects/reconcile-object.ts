// One reconcile of a NatsStream, NatsConsumer, NatsKeyValue or NatsObjectStore.
import type { EventType } from "../../../shared/kube/events.ts";
import type { NatsConnection } from "@nats-io/transport-node";
import { findCondition } from "../../../shared/kube/conditions.ts";
import { KubeRequestError } from "../../../shared/kube/errors.ts";
import { addFinalizer, hasFinalizer } from "../../../shared/kube/finalizers.ts";
import { keyOf, type KubeObject, type ObjectKey } from "../../../shared/kube/object.ts";
import { writeStatus } from "../../../shared/kube/status.ts";
import { NatsApiError, NatsRequestError } from "../../../shared/nats/request.ts";
import { conflict, done, retry, skipped, withSchedules, type Outcome } from "../../../shared/runtime/outcome.ts";
import { createObject, deleteObject, isRefusal, updateObject } from "../jetstream/act.ts";
import { connectWith } from "../../../shared/nats/connection.ts";
import { finalizer, fieldManager, freshForMs, note, resyncPeriodMs, type SyncDeps } from "../context.ts";
import { keepSettleCheck } from "../settle.ts";
import { finalizeObject } from "./finalize.ts";
import { isFirstSight, isOwnFinalizerWrite, takeUpFirstSight } from "./first-sight.ts";
import { isSpecProblem, jetstreamApiVersion, type Target } from "../targets/kinds.ts";
import { withLeader } from "../jetstream/leader.ts";
import { readMarker } from "../config/marker.ts";
import { observe, type Observed } from "../jetstream/observe.ts";
import { placementOf, type JetStreamObject } from "../targets/placement.ts";
import { planObject, specWriteBack, type Plan } from "../plan/plan.ts";
import { isUnsettled, nextStatus, serverStatusOf, type SyncResult } from "../plan/status.ts";
import { consumersMoved, listConsumers, transferOf } from "../jetstream/transfer.ts";

export type { JetStreamObject };

export type Trigger = "event" | "tick";

export interface ReconcileResult {
  outcome: Outcome;
  /** Ready turned True in this reconcile (consumers waiting on a stream are woken). */
  becameReady: boolean;
}

const result = (outcome: Outcome, becameReady = false): ReconcileResult => ({ outcome, becameReady });

/**
 * `payload`: the object as a Resource-mode event carried it. It is trusted only where a
 * guarded write proves it current before anything is acted on (a first sight), and to
 * recognise the echo of that write.
 */
export async function reconcileObject(
  deps: SyncDeps,
  key: ObjectKey,
  trigger: Trigger,
  payload?: JetStreamObject,
): Promise<ReconcileResult> {
  if (await isOwnFinalizerWrite(payload))
    return result(skipped("the echo of this pod's own finalizer write, reconciled by the delivery that made it"));
  let object =
    (isFirstSight(payload) ? await takeUpFirstSight(deps.kube, payload) : undefined) ??
    (await deps.kube.get<JetStreamObject>(key));
  if (!object) return result(skipped(`${key.kind} ${key.namespace}/${key.name} is gone`));
  if (object.metadata.deletionTimestamp) return result(await finalizeObject(deps, object));

  const now = deps.now();
  const generation = object.metadata.generation;
  const status = object.status;
  const terminal = findCondition(status?.conditions, "Terminal");
  if (terminal?.status === "True" && terminal.observedGeneration === generation) {
    if ((object.spec.terminalPolicy ?? "Hold") === "Hold")
      return result(skipped("Terminal; held until the resource is edited"));
    const next = status?.nextCheckTime ? Date.parse(status.nextCheckTime) : 0;
    if (next > now.getTime()) return result(skipped(`Terminal; next check at ${status?.nextCheckTime ?? ""}`));
  }
  if (
    trigger === "event" &&
    status?.observedGeneration === generation &&
    findCondition(status?.conditions, "Ready")?.status === "True"
  ) {
    const last = status?.lastSyncedTime ? Date.parse(status.lastSyncedTime) : 0;
    if (now.getTime() - last < freshForMs) return result(skipped("checked moments ago at this generation"));
  }

  if (!hasFinalizer(object, finalizer)) {
    // The finalizer write is itself an update event; that event does the work,
    // so one delivery chain (and one backoff) runs per change, not two.
    const added = await addFinalizer(deps.kube, object, finalizer);
    if (trigger === "event") return result(done("finalizer added; the update it makes carries on"));
    object = added;
  }

  const wasReady = findCondition(status?.conditions, "Ready")?.status === "True";
  /** Writes the status `sync` comes to; a conflict outcome when a newer reconcile wrote first. */
  const write = async (sync: SyncResult): Promise<{ becameReady: boolean; conflict?: Outcome }> => {
    try {
      // Guarded: a reconcile that waited on NATS must not overwrite what a newer one wrote.
      const status = { ...nextStatus(object?.status, sync, generation, now), observedGeneration: generation };
      const written = await writeStatus(deps.kube, object as JetStreamObject, status, fieldManager, { whole: true });
      if (written.kind === "conflict") return { becameReady: false, conflict: conflict(written.error.message) };
    } catch (error) {
      if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
    }
    return { becameReady: sync.kind === "synced" && !wasReady };
  };

  const placement = await placementOf(deps, object);
  if (!placement.ok) {
    const written = await write(placement.result);
    if (written.conflict) return result(written.conflict);
    const sync = placement.result;
    // A consumer waiting for its stream is redelivered with backoff (then the next drift check);
    // a missing or refused connection waits for the connection's, or the grant's, own event.
    return result(
      sync.kind === "streamWaiting"
        ? retry(sync.message)
        : done(`waiting: ${"message" in sync ? sync.message : sync.kind}`),
    );
  }
  const target = placement.target;
  const terminalOf = (
    reason: "Rejected" | "ExistsUnowned" | "OwnedByOther" | "NotABucket" | "ImmutableField",
    message: string,
  ): SyncResult => ({
    kind: "terminal",
    reason,
    message,
    nextCheck: object?.spec.terminalPolicy === "Retry" ? new Date(now.getTime() + resyncPeriodMs) : undefined,
  });
  if (isSpecProblem(target)) {
    const written = await write(terminalOf("Rejected", target.problem));
    if (written.conflict) return result(written.conflict);
    await note(deps, object, "Warning", "Rejected", target.problem);
    return result(done(`Terminal: ${target.problem}`));
  }

  const connected = await connectWith(deps.kube, deps.pool, placement.connection);
  if (!connected.ok) {
    const written = await write({
      kind: "connection",
      reason: "ConnectionFailed",
      message: connected.message,
      noGrant: false,
    });
    if (written.conflict) return result(written.conflict);
    return result(retry(connected.message));
  }

  // Events are recorded after the status write: the status is what a user (and kubectl wait) waits on.
  const notes: Note[] = [];
  const recordNotes = async () => {
    for (const [type, reason, message] of notes) await note(deps, object as JetStreamObject, type, reason, message);
  };
  try {
    const sync = await syncWithJetStream(deps, object, target, connected.nc, terminalOf, notes);
    const written = await write(sync);
    if (written.conflict) return result(written.conflict);
    const becameReady = written.becameReady;
    await recordNotes();
    if (sync.kind === "terminal") return result(done(`Terminal ${sync.reason}: ${sync.message}`));
    if (sync.kind === "streamWaiting" || sync.kind === "failed") return result(retry(sync.message));
    // A group without a leader, or with a member behind, is re-read until it settles.
    const settle = sync.kind === "synced" && sync.unsettled ? [keepSettleCheck(key.namespace)] : [];
    return result(withSchedules(done(sync.kind), settle), becameReady);
  } catch (error) {
    if (error instanceof NatsApiError || error instanceof NatsRequestError) {
      const written = await write({ kind: "failed", reason: "SyncFailed", message: error.message });
      if (written.conflict) return result(written.conflict);
      await recordNotes();
      return result(retry(`${target.model.what}: ${error.message}`));
    }
    throw error;
  }
}

type Note = [type: EventType, reason: string, message: string];

// The NATS half: observe, plan, act; answers what the status should say, and adds to `notes`
// the Events to record once it is written.
async function syncWithJetStream(
  deps: SyncDeps,
  object: JetStreamObject,
  target: Target,
  nc: NatsConnection,
  terminalOf: (
    reason: "Rejected" | "ExistsUnowned" | "OwnedByOther" | "NotABucket" | "ImmutableField",
    message: string,
  ) => SyncResult,
  notes: Note[],
): Promise<SyncResult> {
  const uid = object.metadata.uid ?? "";
  const adoptionPolicy = object.spec.adoptionPolicy ?? "Never";
  const observation = await observe(nc, target);
  if (!observation.found && observation.streamMissing && target.consumer !== undefined) {
    return { kind: "streamWaiting", reason: "StreamNotFound", message: `stream ${target.stream} does not exist` };
  }
  const server = observation.found ? observation.observed : undefined;
  const owner = server ? readMarker(server.config.metadata).owner : undefined;
  const foreignOwnerExists = owner !== undefined && owner !== uid ? await ownerExists(deps, object.kind, owner) : false;

  const plan: Plan = planObject({
    model: target.model,
    uid,
    adoptionPolicy,
    desired: target.desired,
    specMetadata: target.specMetadata,
    server: server?.config,
    foreignOwnerExists,
    pendingEdit: object.status?.observedGeneration !== object.metadata.generation,
  });

  let after: Observed | undefined = server;
  let drift: string[] | undefined;
  try {
    switch (plan.kind) {
      case "await":
        return { kind: "adoptWaiting", message: plan.message };
      case "terminal":
        notes.push(["Warning", plan.reason, plan.message]);
        return terminalOf(plan.reason, plan.message);
      case "create":
        after = await createObject(nc, target, plan.config);
        notes.push(["Normal", "Created", `created ${target.model.what}`]);
        break;
      case "update":
        if (plan.claimed && adoptionPolicy === "Adopt" && server)
          await writeBack(deps, object, target, server, "replace");
        after = await updateObject(nc, target, plan.config);
        if (plan.claimed) notes.push(["Normal", "Adopted", `adopted ${target.model.what}`]);
        else
          notes.push([
            "Normal",
            plan.edit ? "Updated" : "DriftCorrected",
            `${plan.edit ? "updated" : "reapplied spec over drift in"} ${target.model.what} (${plan.drift.join(", ")})`,
          ]);
        if (!plan.edit) drift = plan.drift;
        break;
      case "recreate":
        await deleteObject(nc, target);
        after = await createObject(nc, target, plan.config);
        notes.push(["Normal", "Recreated", `recreated ${target.model.what} to change ${plan.changed.join(", ")}`]);
        break;
      case "settled":
        break;
    }
  } catch (error) {
    if (isRefusal(error)) {
      notes.push(["Warning", "Rejected", error.message]);
      return terminalOf("Rejected", `${target.model.what}: ${error.message}`);
    }
    throw error;
  }
  if (!after) throw new Error("no server object after acting");
  // A new replicated group may not have elected its leader yet: re-read briefly so the status names it.
  after = await withLeader(after, async () => {
    const again = await observe(nc, target);
    return again.found ? again.observed : undefined;
  });
  if (adoptionPolicy !== "Never" && !(plan.kind === "update" && plan.claimed && adoptionPolicy === "Adopt")) {
    await writeBack(deps, object, target, after, "fill");
  }
  const origin = plan.kind === "create" ? "Created" : plan.origin;
  let transfer = target.kind === "NatsStream" ? transferOf(after.info) : undefined;
  if (transfer?.to) {
    try {
      transfer = { ...transfer, consumers: consumersMoved(await listConsumers(nc, target.stream), transfer.to) };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return {
        kind: "failed",
        reason: "ObserveFailed",
        message: `${target.model.what} is moving but its consumers cannot be read: ${why}`,
      };
    }
  }
  return {
    kind: "synced",
    what: target.model.what,
    origin,
    uid,
    drift,
    server: serverStatusOf(after.info, target.consumer === undefined),
    unsettled: isUnsettled(after.info) || transfer !== undefined,
    ...(transfer ? { transfer } : {}),
  };
}

/** Writes the server's config into spec (Adopt) or fills in what spec omits (late initialisation). */
async function writeBack(
  deps: SyncDeps,
  object: JetStreamObject,
  target: Target,
  server: Observed,
  mode: "replace" | "fill",
): Promise<void> {
  const patch = specWriteBack(object.spec, target.toSpec(server.config), target.configFields, mode);
  if (!patch) return;
  await deps.kube.patch(
    keyOf(object),
    { metadata: { resourceVersion: object.metadata.resourceVersion }, spec: patch },
    "merge",
  );
}

/** Whether a resource of this kind with this UID exists anywhere (the marker's owner is alive). */
async function ownerExists(deps: SyncDeps, kind: string, uid: string): Promise<boolean> {
  const all = await deps.kube.list<KubeObject>({ apiVersion: jetstreamApiVersion, kind });
  return all.some((o) => o.metadata.uid === uid);
}
