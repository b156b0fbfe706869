// The object reconcile's decisions, pure: whether to look at all, then from what was observed the
// JetStream write, the status, the Events and the answer; and, once the write is made, the status
// its result shows.
import { findCondition } from "../../../shared/kube/index.ts";
import type { Cause } from "../../../shared/runtime/index.ts";
import { freshForMs, resyncPeriodMs, syncedTimeCadenceMs } from "../context.ts";
import type { Spec } from "../config/fields.ts";
import { readMarker } from "../config/marker.ts";
import { consumersMoved, transferOf } from "../jetstream/transfer.ts";
import { bucketWriteHold } from "../plan/bucket-account.ts";
import { planObject, specWriteBack, type TerminalReason } from "../plan/plan.ts";
import {
  consumerLostMessage,
  discardedBy,
  existedBefore,
  lossOf,
  recordedLoss,
  streamLostMessage,
} from "../plan/losses.ts";
import { isUnsettled, nextStatus, quietSyncTime, serverStatusOf, type SyncResult } from "../plan/status.ts";
import type { JetStreamObject, ServerObject } from "../types.ts";
import type { AfterWrite, Decision, Finish, Note, Observed, SyncDecision, Trigger } from "./types.ts";

/**
 * How a cause is taken. A connection that came up only says so: what was checked moments ago
 * stands. A connection gone, a grant changed, a settle tick or the resync tick: compare now.
 */
export function triggerOf(cause: Cause): Trigger {
  if (cause.kind === "event") return "event";
  if (cause.kind === "related" && cause.from !== "tick" && cause.from.kind === "NatsConnection" && !cause.gone)
    return "event";
  return "tick";
}

/**
 * Why the object is left alone before anything is read: Terminal at this generation (held until
 * an edit, or under Retry until its next check), or, on an event, checked moments ago at this
 * generation. Undefined: reconcile it.
 */
export function heldBack(object: JetStreamObject, trigger: Trigger, now: Date): string | undefined {
  const generation = object.metadata.generation;
  const status = object.status;
  const terminal = findCondition(status?.conditions, "Terminal");
  if (terminal?.status === "True" && terminal.observedGeneration === generation) {
    if ((object.spec.terminalPolicy ?? "Hold") === "Hold") return "Terminal; held until the resource is edited";
    const next = status?.nextCheckTime ? Date.parse(status.nextCheckTime) : 0;
    if (next > now.getTime()) return `Terminal; next check at ${status?.nextCheckTime ?? ""}`;
  }
  if (
    trigger === "event" &&
    status?.observedGeneration === generation &&
    findCondition(status?.conditions, "Ready")?.status === "True"
  ) {
    const last = status?.lastSyncedTime ? Date.parse(status.lastSyncedTime) : 0;
    if (now.getTime() - last < freshForMs) return "checked moments ago at this generation";
  }
  return undefined;
}

/** The status a result comes to, at the object's generation; a check that changed nothing leaves the time (quietSyncTime). */
function statusOf(object: JetStreamObject, result: SyncResult, now: Date) {
  const generation = object.metadata.generation;
  const next = { ...nextStatus(object.status, result, generation, now), observedGeneration: generation };
  return quietSyncTime(object.status, next, now, syncedTimeCadenceMs);
}

const terminalOf = (object: JetStreamObject, reason: TerminalReason, message: string, now: Date): SyncResult => ({
  kind: "terminal",
  reason,
  message,
  nextCheck: object.spec.terminalPolicy === "Retry" ? new Date(now.getTime() + resyncPeriodMs) : undefined,
});

function finish(object: JetStreamObject, result: SyncResult, now: Date, answer: Finish["answer"], notes: Note[] = []) {
  return { status: statusOf(object, result, now), notes, answer };
}

function finished(summary: string, f: Finish): Decision {
  return { kind: "finish", summary, finish: f };
}

const done = (summary: string) => ({ kind: "done", summary }) as const;
const again = (message: string) => ({ kind: "again", message }) as const;

export function decide(observed: Observed, now: Date): Decision {
  const { object } = observed;
  switch (observed.kind) {
    case "unplaced": {
      const result = observed.result;
      // A consumer waiting for its stream is redelivered with backoff (then the next drift check);
      // a missing or refused connection waits for the connection's, or the grant's, own event.
      const answer = result.kind === "streamWaiting" ? again(result.message) : done(`waiting: ${result.message}`);
      return finished(result.reason, finish(object, result, now, answer));
    }
    case "specProblem": {
      const result = terminalOf(object, "Rejected", observed.problem, now);
      const notes: Note[] = [["Warning", "Rejected", observed.problem]];
      return finished("Rejected", finish(object, result, now, done(`Terminal: ${observed.problem}`), notes));
    }
    case "unreachable": {
      const result: SyncResult = {
        kind: "connection",
        reason: "ConnectionFailed",
        message: observed.message,
        noGrant: false,
      };
      return finished("ConnectionFailed", finish(object, result, now, again(observed.message)));
    }
    case "streamMissing": {
      const message = `stream ${observed.target.stream} does not exist`;
      const result: SyncResult = { kind: "streamWaiting", reason: "StreamNotFound", message };
      return finished("StreamNotFound", finish(object, result, now, again(message)));
    }
    case "readFailed":
      return failedDecision(object, observed.target.model.what, observed.message, now);
    case "server":
      return decideWrite(observed, now);
  }
}

function failedDecision(object: JetStreamObject, what: string, message: string, now: Date): Decision {
  const result: SyncResult = { kind: "failed", reason: "SyncFailed", message };
  return finished("SyncFailed", finish(object, result, now, again(`${what}: ${message}`)));
}

/** The JetStream write the server object needs, or the status that stops short of one. */
function decideWrite(observed: Extract<Observed, { kind: "server" }>, now: Date): Decision {
  const { object, target, server } = observed;
  const uid = object.metadata.uid ?? "";
  const adoptionPolicy = object.spec.adoptionPolicy ?? "Never";
  const plan = planObject({
    model: target.model,
    uid,
    adoptionPolicy,
    desired: target.desired,
    specMetadata: target.specMetadata,
    server: server?.config,
    foreignOwnerExists: observed.foreignOwnerExists,
    pendingEdit: object.status?.observedGeneration !== object.metadata.generation,
  });
  const what = target.model.what;
  switch (plan.kind) {
    case "await": {
      const result: SyncResult = { kind: "adoptWaiting", message: plan.message };
      return finished("adoptWaiting", finish(object, result, now, done("adoptWaiting")));
    }
    case "terminal": {
      const result = terminalOf(object, plan.reason, plan.message, now);
      const notes: Note[] = [["Warning", plan.reason, plan.message]];
      return finished(
        plan.reason,
        finish(object, result, now, done(`Terminal ${plan.reason}: ${plan.message}`), notes),
      );
    }
    default:
      break;
  }
  // A bucket is written only once its account's JetStream has been heard from (J20).
  const hold = plan.kind === "settled" ? undefined : bucketWriteHold(target, observed.account);
  if (hold?.kind === "failed") return failedDecision(object, what, hold.message, now);
  if (hold?.kind === "rejected") {
    const result = terminalOf(object, "Rejected", `${what}: ${hold.message}`, now);
    const notes: Note[] = [["Warning", "Rejected", hold.message]];
    return finished(
      "Rejected",
      finish(object, result, now, done(`Terminal Rejected: ${what}: ${hold.message}`), notes),
    );
  }
  // The server object existed and is gone: the loss is said (and, for a NatsStream, recorded, or
  // held under onLoss Hold) before it is created again.
  const gone = plan.kind === "create" && existedBefore(object.status);
  let lost: SyncDecision["lost"];
  if (gone && target.kind === "NatsStream") {
    const hold = object.spec.onLoss === "Hold";
    const recorded = recordedLoss(object.status);
    const record = recorded ?? lossOf(object.status, now);
    const message = streamLostMessage(what, record, hold);
    const lostNotes: Note[] = recorded ? [] : [["Warning", "StreamLost", message]];
    if (hold) {
      const status = { ...statusOf(object, { kind: "lost", message }, now), lost: record };
      return finished("StreamLost", { status, notes: lostNotes, answer: done(`StreamLost: ${message}`) });
    }
    lost = { record, notes: lostNotes };
  }
  const claiming = plan.kind === "update" && plan.claimed && adoptionPolicy === "Adopt";
  const discards =
    plan.kind === "update" && !plan.edit && target.consumer === undefined && server
      ? discardedBy(server.config, plan.config, target.model.defaults(server.config))
      : [];
  const warnings: Note[] = [
    ...(lost?.notes ?? []),
    ...(gone && target.consumer !== undefined
      ? [["Warning", "ConsumerLost", consumerLostMessage(what, target.desired)] as const]
      : []),
    ...(discards.length > 0
      ? [["Warning", "LimitsLowered", `reapplying spec over drift in ${what}: ${discards.join("; ")}`] as const]
      : []),
  ];
  const written: Note[] =
    plan.kind === "create"
      ? [["Normal", "Created", `created ${what}`]]
      : plan.kind === "recreate"
        ? [["Normal", "Recreated", `recreated ${what} to change ${plan.changed.join(", ")}`]]
        : plan.kind === "update"
          ? plan.claimed
            ? [["Normal", "Adopted", `adopted ${what}`]]
            : [
                [
                  "Normal",
                  plan.edit ? "Updated" : "DriftCorrected",
                  `${plan.edit ? "updated" : "reapplied spec over drift in"} ${what} (${plan.drift.join(", ")})`,
                ],
              ]
          : [];
  const notes = [...warnings, ...written];
  return {
    kind: "sync",
    summary: plan.kind,
    target,
    plan,
    server,
    claim:
      claiming && server
        ? specWriteBack(object.spec, target.toSpec(server.config), target.configFields, "replace")
        : undefined,
    fill: adoptionPolicy !== "Never" && !claiming,
    notes,
    ...(lost ? { lost } : {}),
    object,
    at: now.toISOString(),
  };
}

/** Late initialisation: the spec fields the written server config can fill in, or undefined. */
export function fillPatch(decision: SyncDecision, spec: Spec, after: ServerObject): Spec | undefined {
  if (!decision.fill) return undefined;
  return specWriteBack(spec, decision.target.toSpec(after.config), decision.target.configFields, "fill");
}

/** The NATS cluster a stream is moving to, whose consumers the status counts; undefined when none. */
export function movingTo(decision: SyncDecision, after: ServerObject): string | undefined {
  return decision.target.kind === "NatsStream" ? transferOf(after.info)?.to : undefined;
}

/** The status once the write is made (or none was needed): Synced, or ObserveFailed for a move whose consumers cannot be read. */
export function afterWrite(decision: SyncDecision, after: AfterWrite): Finish {
  const { object, target, plan } = decision;
  const now = new Date(decision.at);
  const what = target.model.what;
  let transfer = target.kind === "NatsStream" ? transferOf(after.server.info) : undefined;
  if (transfer?.to && after.consumers) {
    if (!after.consumers.ok) {
      const message = `${what} is moving but its consumers cannot be read: ${after.consumers.why}`;
      const result: SyncResult = { kind: "failed", reason: "ObserveFailed", message };
      return withLoss(decision, finish(object, result, now, again(message), [...decision.notes]));
    }
    transfer = { ...transfer, consumers: consumersMoved(after.consumers.list, transfer.to) };
  }
  const result: SyncResult = {
    kind: "synced",
    what,
    origin: plan.kind === "create" ? "Created" : plan.origin,
    uid: object.metadata.uid ?? "",
    drift: plan.kind === "update" && !plan.edit ? plan.drift : undefined,
    server: serverStatusOf(after.server.info, target.consumer === undefined),
    unsettled: isUnsettled(after.server.info) || transfer !== undefined,
    ...(transfer ? { transfer } : {}),
  };
  // A group without a leader, or with a member behind, is re-read until it settles.
  const synced = finish(object, result, now, done("synced"), [...decision.notes]);
  return { ...withLoss(decision, synced), unsettled: result.unsettled === true };
}

/** The server refused the write (no retry will change that): Terminal Rejected. */
export function refused(decision: SyncDecision, message: string): Finish {
  const what = decision.target.model.what;
  const now = new Date(decision.at);
  const result = terminalOf(decision.object, "Rejected", `${what}: ${message}`, now);
  const rejected = finish(decision.object, result, now, done(`Terminal Rejected: ${what}: ${message}`), [
    ...(decision.lost?.notes ?? []),
    ["Warning", "Rejected", message],
  ]);
  return withLoss(decision, rejected);
}

/** The write failed on the NATS side (a timeout, a server error): retried with the Broker's backoff. */
export function writeFailed(decision: SyncDecision, message: string): Finish {
  const f = failedDecision(decision.object, decision.target.model.what, message, new Date(decision.at));
  if (f.kind !== "finish") throw new Error("a failure finishes the pass");
  return withLoss(decision, { ...f.finish, notes: [...(decision.lost?.notes ?? []), ...f.finish.notes] });
}

/** A stream found lost in this pass keeps the record in the status, whatever the write came to. */
function withLoss(decision: SyncDecision, f: Finish): Finish {
  return decision.lost ? { ...f, status: { ...f.status, lost: decision.lost.record } } : f;
}

/** Whether the server object's marker names another owner, whose existence observe checks. */
export function foreignOwner(object: JetStreamObject, server: ServerObject | undefined): string | undefined {
  const owner = server ? readMarker(server.config.metadata).owner : undefined;
  return owner !== undefined && owner !== (object.metadata.uid ?? "") ? owner : undefined;
}
