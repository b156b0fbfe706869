// What the reconcilers share within one process.
import { FIELD_MANAGERS, FINALIZERS } from "../../shared/api/index.ts";
import type { EventRecorder, EventType, KubeObject } from "../../shared/kube/index.ts";
import type { Logger } from "../../shared/telemetry/index.ts";

export const fieldManager: string = FIELD_MANAGERS.syncStream;
export const finalizer: string = FINALIZERS.jetstream;

/**
 * `--resync-period`: how long a Terminal object under `terminalPolicy: Retry` waits for its next
 * check. Every object is compared with the server on the resync tick (`resync.schedule`, every 10 minutes by default).
 */
export const resyncPeriodMs = 10 * 60_000;
/** While an object's Raft group is unsettled, its status is re-read this often. */
export const settleCron = process.env.SYNC_STREAM_SETTLE_CRON ?? "*/15 * * * * *";
/** An apiserver event for an object checked this recently, at its current generation, is not rechecked. */
export const freshForMs = 30_000;
/**
 * How often a check that changes nothing else in status still records its time in
 * `status.lastSyncedTime`: every hour, so that an idle stream costs one status write an hour, not
 * one per drift check (every 10 minutes), and a user still sees that the checks run.
 */
export const syncedTimeCadenceMs = 60 * 60_000;

/** What recording an Event needs (a reconcile's context has it). */
export interface Notes {
  readonly log: Logger;
  recorder(): Promise<EventRecorder>;
}

/** Records an Event; a failure to record never fails the reconcile. */
export async function note(
  deps: Notes,
  object: KubeObject,
  type: EventType,
  reason: string,
  message: string,
): Promise<void> {
  try {
    await (await deps.recorder()).record(object, type, reason, message);
  } catch (error) {
    deps.log.warn({ err: error, reason }, "cannot record event");
  }
}
