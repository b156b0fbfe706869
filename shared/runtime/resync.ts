// The resync: a safety net that needs no event. Knative's ApiServerSource
// sends nothing for objects that existed before it started, that a relist
// skipped, or whose event ran out of retries; so one cluster-wide PingSource
// per function (knative/resync.yaml) ticks every few minutes with
// `{"resync": true}`, and the runtime answers the tick for the function: it
// lists the kinds the function owns and delivers an update of each object
// that is not at rest to the function, as the Broker would have (every
// object, at rest or not, for a function that checks drift). A tick whose
// body names a namespace sweeps that namespace alone.
import { CloudEvent } from "cloudevents";
import { API_VERSION } from "../api/groups.ts";
import type { KubeObject } from "../kube/object.ts";
import { isStatusEcho } from "./echo.ts";
import { EventTypes, type ObjectSnapshot, type OperatorEvent } from "./event.ts";
import type { OperatorFunction } from "./function.ts";
import { done, type Outcome } from "./outcome.ts";
import { showsStalled } from "./refusal.ts";

/** The PingSource body of a resync tick. */
export const RESYNC_WORK = { resync: true } as const;

/** The source of the update events a sweep delivers. */
const RESYNC_SOURCE = "nats-operator/resync";

/** Deliveries in flight during one sweep: enough to overlap API latency, few enough for one pod. */
const SWEEP_CONCURRENCY = 4;

export function isResyncTick(event: OperatorEvent): boolean {
  return event.source === "ping" && event.work["resync"] === true;
}

/** The namespace a resync tick is limited to, if its body names one. */
export function resyncNamespace(event: OperatorEvent): string | undefined {
  if (event.source !== "ping") return undefined;
  const namespace = event.work["namespace"];
  return typeof namespace === "string" && namespace !== "" ? namespace : undefined;
}

/**
 * At rest: the status describes the current spec, nothing the function acts on is pending
 * (the same test that drops status echoes), the object is not Stalled and not un-Ready.
 */
export function atRest(fn: OperatorFunction, object: KubeObject, now: Date): boolean {
  const snapshot = object as ObjectSnapshot;
  const update: OperatorEvent = {
    source: "apiserver",
    action: "update",
    mode: "resource",
    ref: {
      apiVersion: object.apiVersion,
      kind: object.kind,
      namespace: object.metadata.namespace ?? "",
      name: object.metadata.name,
    },
    snapshot,
  };
  if (!isStatusEcho(update, fn.actionAnnotations, (s) => fn.caresAbout?.(s, now) ?? false)) return false;
  if (showsStalled(snapshot)) return false;
  return !(snapshot.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status !== "True");
}

/** Whether a CloudEvent is one a sweep delivered, rather than the ApiServerSource. */
export function isResyncDelivery(ce: CloudEvent<unknown>): boolean {
  return ce.source === RESYNC_SOURCE;
}

/** The update event the ApiServerSource would send for `object`, in Resource mode. */
export function resyncEvent(object: KubeObject): CloudEvent<unknown> {
  return new CloudEvent<unknown>({
    id: `resync-${object.metadata.uid ?? object.metadata.name}-${object.metadata.resourceVersion ?? ""}`,
    type: EventTypes.resourceUpdate,
    source: RESYNC_SOURCE,
    datacontenttype: "application/json",
    apiversion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    data: object,
  });
}

/**
 * One sweep: lists every kind `fn.owns` and hands each object not at rest (each object, when
 * the function checks drift) to `deliver`, in the order `fn.owns` names the kinds. A failed
 * delivery is the next tick's business, so the tick itself is done.
 */
export async function sweep(
  fn: OperatorFunction,
  list: (apiVersion: string, kind: string) => Promise<KubeObject[]>,
  deliver: (ce: CloudEvent<unknown>) => Promise<Outcome>,
  now: Date,
): Promise<Outcome> {
  const objects: KubeObject[] = [];
  for (const qualified of fn.owns ?? []) {
    const dot = qualified.indexOf(".");
    const kind = qualified.slice(0, dot);
    const group = qualified.slice(dot + 1);
    objects.push(...(await list(`${group}/${API_VERSION}`, kind)));
  }
  const due = fn.checksDrift ? objects : objects.filter((o) => !atRest(fn, o, now));
  const outcomes: Outcome["kind"][] = [];
  for (let i = 0; i < due.length; i += SWEEP_CONCURRENCY) {
    const batch = due.slice(i, i + SWEEP_CONCURRENCY);
    outcomes.push(...(await Promise.all(batch.map(async (o) => (await deliver(resyncEvent(o))).kind))));
  }
  const failed = outcomes.filter((k) => k !== "done" && k !== "skipped").length;
  const delivered = fn.checksDrift ? "delivered to check drift" : "not at rest delivered";
  return done(`resync: ${objects.length} objects, ${due.length} ${delivered}, ${failed} not done`);
}
