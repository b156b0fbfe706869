import { CONDITION_TYPES } from "../api/constants/conditions.ts";
import { FIELD_MANAGERS } from "../api/constants/field-managers.ts";
import { RUNTIME_REASONS } from "../api/constants/reasons.ts";
import { API_GROUPS } from "../api/groups.ts";
import type { Kube } from "../kube/client.ts";
import type { KubeRequestError } from "../kube/errors.ts";
import { setCondition, type Condition } from "../kube/conditions.ts";
import type { EventRecorder } from "../kube/events.ts";
import type { KubeObject } from "../kube/object.ts";
import { writeStatus, type StatusWrite } from "../kube/status.ts";
import type { Logger } from "../telemetry/logger.ts";
import type { ObjectRef, ObjectSnapshot } from "./event.ts";

/**
 * The runtime's own condition: True while the API server refuses a request the object's
 * reconcile makes (400, 403, 422), which retrying as is cannot fix. kstatus and Flux read
 * `Stalled` the same way. Only the runtime writes it.
 */
export const STALLED = CONDITION_TYPES.Stalled;
export const REQUEST_REFUSED = RUNTIME_REASONS.RequestRefused;

/** A refusal that will not go away by retrying the same request: a human has to act. */
export function isPermanentRefusal(error: KubeRequestError): boolean {
  return error.code === 400 || error.code === 403 || error.code === 422;
}

export function refusalMessage(error: KubeRequestError): string {
  return `the API server refused a request (${error.code} ${error.reason}): ${error.message}`;
}

const OWN_GROUPS: ReadonlySet<string> = new Set(Object.values(API_GROUPS));

/**
 * Whether `Stalled` can be recorded on the object: only our own kinds carry it. A child's
 * event (a StatefulSet's) is reported on the NatsCluster by that object's own reconcile.
 */
export function carriesStalled(ref: ObjectRef): boolean {
  return OWN_GROUPS.has(ref.apiVersion.split("/")[0] ?? "");
}

/**
 * Tells the user on the object: a Warning Event and `Stalled=True`. Best effort: the status
 * write may itself be what is refused, and the refusal is logged either way.
 */
export async function reportRefusal(
  kube: Kube,
  recorder: EventRecorder,
  ref: ObjectRef,
  error: KubeRequestError,
  now: Date,
  log: Logger,
): Promise<void> {
  const message = refusalMessage(error);
  log.error({ code: error.code, reason: error.reason }, message);
  const object = await kube.get<WithConditions>({ ...ref }).catch(() => undefined);
  if (!object) return;
  await recorder.record(object, "Warning", REQUEST_REFUSED, message).catch(() => undefined);
  const stalled = {
    type: STALLED,
    status: "True" as const,
    reason: REQUEST_REFUSED,
    message,
    ...(object.metadata.generation !== undefined ? { observedGeneration: object.metadata.generation } : {}),
  };
  try {
    const written = await replaceConditions(kube, object, (conditions) => setCondition(conditions, stalled, now));
    if (written.kind === "conflict") log.warn({ err: written.error }, "could not record Stalled on the object");
  } catch (failure) {
    log.warn({ err: failure }, "could not record Stalled on the object");
  }
}

/** Whether the event's object still shows `Stalled=True` from an earlier refusal. */
export function showsStalled(snapshot: ObjectSnapshot | undefined): boolean {
  return (snapshot?.status?.conditions ?? []).some((c) => c.type === STALLED && c.status === "True");
}

/**
 * Drops the runtime's condition once a reconcile of the object gets through; a conflict when
 * the object changed since it was read (the delivery is retried against the newer object).
 */
export async function clearStalled(kube: Kube, ref: ObjectRef): Promise<StatusWrite<WithConditions> | undefined> {
  const object = await kube.get<WithConditions>({ ...ref });
  if (!object) return undefined;
  return replaceConditions(kube, object, (conditions) => conditions.filter((c) => c.type !== STALLED));
}

type WithConditions = KubeObject & { status?: { conditions?: Condition[] } & Record<string, unknown> };

/**
 * A whole-status write guarded by the resourceVersion just read, so the whole list is ours to
 * set: a server-side apply would leave the entry to any function that re-applied the conditions
 * it found.
 */
async function replaceConditions(
  kube: Kube,
  object: WithConditions,
  change: (conditions: Condition[]) => Condition[],
): Promise<StatusWrite<WithConditions>> {
  const status = object.status ?? {};
  const conditions = change(status.conditions ?? []);
  return writeStatus(kube, object, { ...status, conditions }, FIELD_MANAGERS.runtime, { whole: true });
}
