// A new object, reconciled from its event's payload without reading it first.
import { addFinalizer, guarded, type Kube, KubeRequestError } from "../../../shared/kube/index.ts";
import type { OperatorEvent } from "../../../shared/runtime/index.ts";
import { finalizer } from "../context.ts";
import type { JetStreamObject } from "../types.ts";

/**
 * The finalizer writes this process made on first sight: uid to the resourceVersion the write
 * gave, known once it answers. The update event each of them causes names exactly the state
 * the delivery that made it goes on to reconcile, so it is answered without a read; it can
 * arrive before the write's own answer, hence the promise. Only an optimisation: another pod,
 * or this one after a restart, reads the object as for any other event.
 */
const ownFinalizerWrites = new Map<string, Promise<string | undefined>>();
const remembered = 10_000;

/** The object a Resource-mode event carries, when it is whole and is the one the event names. */
export function payloadOf(event: OperatorEvent, data: unknown): JetStreamObject | undefined {
  if (event.source !== "apiserver" || event.mode !== "resource" || event.action === "delete") return undefined;
  if (typeof data !== "object" || data === null) return undefined;
  const object = data as Partial<JetStreamObject>;
  const { ref } = event;
  const matches =
    object.apiVersion === ref.apiVersion &&
    object.kind === ref.kind &&
    object.metadata?.name === ref.name &&
    object.metadata.namespace === ref.namespace &&
    typeof object.metadata.uid === "string" &&
    typeof object.metadata.resourceVersion === "string" &&
    typeof object.spec === "object" &&
    object.spec !== null;
  return matches ? (object as JetStreamObject) : undefined;
}

/** A Resource-mode payload of an object no reconcile has touched yet: no finalizer, no status, not deleting. */
export function isFirstSight(payload: JetStreamObject | undefined): payload is JetStreamObject {
  return (
    payload !== undefined &&
    payload.status === undefined &&
    !payload.metadata.deletionTimestamp &&
    !(payload.metadata.finalizers ?? []).includes(finalizer)
  );
}

/** Whether the payload is the object as this process's own first-sight finalizer write left it. */
export async function isOwnFinalizerWrite(payload: JetStreamObject | undefined): Promise<boolean> {
  const write = payload?.metadata.uid === undefined ? undefined : ownFinalizerWrites.get(payload.metadata.uid);
  return write !== undefined && (await write) === payload?.metadata.resourceVersion;
}

/**
 * Adds the finalizer to a first-sight payload with a write guarded by the payload's
 * resourceVersion: its success proves the payload current, and its answer is the object to
 * reconcile. Undefined when the payload was stale (or the object gone): read it instead.
 */
export async function takeUpFirstSight(kube: Kube, payload: JetStreamObject): Promise<JetStreamObject | undefined> {
  const uid = payload.metadata.uid ?? "";
  const write = addFinalizer(kube, payload, finalizer);
  if (ownFinalizerWrites.size >= remembered) ownFinalizerWrites.delete(ownFinalizerWrites.keys().next().value ?? "");
  ownFinalizerWrites.set(
    uid,
    write.then(
      (taken) => taken.metadata.resourceVersion,
      () => undefined,
    ),
  );
  try {
    const taken = await guarded(() => write);
    return taken.kind === "written" ? taken.value : undefined;
  } catch (error) {
    if (error instanceof KubeRequestError && error.isNotFound) return undefined;
    throw error;
  }
}
