// The resync: a safety net that needs no event. Knative's ApiServerSource
// sends nothing for objects that existed before it started, that a relist
// skipped, or whose event ran out of retries; so one cluster-wide PingSource
// per function (knative/resync.yaml) ticks every few minutes with
// `{"resync": true}`, and the runtime answers the tick for the function: it
// lists the kinds the function owns and delivers an update of each object
// that is not at rest, or whose inputs changed since its last reconcile (the
// record its reconcile keeps in status, shared/runtime/inputs.ts: so a lost
// event of a Secret, a grant, a trust or an account is recovered too), to
// the function, as the Broker would have (every object, at rest or not, for
// a function that checks drift). A tick whose body names a namespace sweeps
// that namespace alone. Each firing of the PingSource is swept once, however
// many ticks claim it (resync-cap.ts, claimed before the sweep in dispatch.ts).
import { CloudEvent } from "cloudevents";
import { API_VERSION } from "../api/groups.ts";
import type { KubeObject } from "../kube/object.ts";
import { currentVersions, digestAt, type InputRecord, type InputRef, parseRecord, recordOf } from "./inputs.ts";
import { isStatusEcho } from "./echo.ts";
import { EventTypes, type ObjectSnapshot, type OperatorEvent } from "./event.ts";
import type { OperatorFunction } from "./function.ts";
import { done, type Outcome } from "./outcome.ts";
import { inBatches } from "./in-batches.ts";
import { showsStalled } from "./refusal.ts";
import { type Patience, patienceOf, SWEEP_PATIENCE, type SweepPatience } from "./sweep-patience.ts";

/** The PingSource body of a resync tick. */
export const RESYNC_WORK = { resync: true } as const;

/** The source of the update events a sweep delivers. */
const RESYNC_SOURCE = "nats-operator/resync";

/** Deliveries in flight during one sweep: enough to overlap API latency, few enough for one pod. */
const SWEEP_CONCURRENCY = 4;

export function isResyncTick(event: OperatorEvent): boolean {
  return event.source === "ping" && event.work["resync"] === true;
}

/**
 * Why a tick that says it is a resync is not one (answered 400: its PingSource must be fixed,
 * retrying cannot help), or undefined: `resync` must be true, `namespace` absent or a name.
 */
export function malformedResync(event: OperatorEvent): string | undefined {
  if (event.source !== "ping" || !("resync" in event.work)) return undefined;
  const { resync, namespace } = event.work;
  if (resync !== true) return `a resync tick's "resync" must be true, not ${JSON.stringify(resync)}`;
  if (namespace !== undefined && (typeof namespace !== "string" || namespace === ""))
    return `a resync tick's "namespace" must name a namespace, not ${JSON.stringify(namespace)}`;
  return undefined;
}

/** The namespace a resync tick is limited to, if its body names one. */
export function resyncNamespace(event: OperatorEvent): string | undefined {
  if (event.source !== "ping") return undefined;
  const namespace = event.work["namespace"];
  return typeof namespace === "string" && namespace !== "" ? namespace : undefined;
}

/**
 * At rest: the status describes the current spec, nothing the function acts on is pending
 * (the same test that drops status echoes), the object is not Stalled, shows no failure of the
 * function's last reconcile, and is not un-Ready.
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
  if (showsStalled(snapshot) || fn.showsFailure?.(snapshot)) return false;
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

/** How the sweep reads the world: listings of a kind (in one namespace, or all), and one object. */
export interface SweepReads {
  list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]>;
  get(ref: InputRef): Promise<KubeObject | undefined>;
  /** Whether an error is the API server refusing the function a listing (it may get, not list, the kind). */
  refused(error: unknown): boolean;
  /** Whether an error is passing (throttled, unavailable, no answer): the read is tried again. */
  transient(error: unknown): boolean;
}

/** The reads, each tried again while `patience` lasts when it fails for now. */
const patientReads = (reads: SweepReads, patience: Patience): SweepReads => ({
  ...reads,
  list: (apiVersion, kind, namespace) => patience.read(() => reads.list(apiVersion, kind, namespace), reads.transient),
  get: (ref) => patience.read(() => reads.get(ref), reads.transient),
});

/** Why an object at rest is delivered: its inputs changed, or its record is missing or unreadable. */
type Stale = "changed" | "unrecorded" | "unreadable";

/**
 * The objects at rest whose recorded inputs no longer match the world, and why. Every ref of
 * every record is read in one pass (a namespace's listing of a kind once), so the cost of a sweep
 * grows with the namespaces and kinds read, not with the objects.
 */
async function staleInputs(fn: OperatorFunction, objects: readonly KubeObject[], reads: SweepReads) {
  const records = new Map<KubeObject, InputRecord | Stale>();
  for (const object of objects) {
    const text = recordOf(object, fn.name);
    records.set(object, text === undefined ? "unrecorded" : (parseRecord(text) ?? "unreadable"));
  }
  const refs = [...records.values()].flatMap((r) => (typeof r === "string" ? [] : r.refs));
  const versions = await currentVersions(
    refs,
    (apiVersion, kind, namespace) => reads.list(apiVersion, kind, namespace),
    (ref) => reads.get(ref),
    (error) => reads.refused(error),
    fn.inputFacets,
  );
  const stale = new Map<KubeObject, Stale>();
  for (const [object, record] of records) {
    if (typeof record === "string") stale.set(object, record);
    else if (digestAt(record, versions, object.metadata.generation) !== record.digest) stale.set(object, "changed");
  }
  return stale;
}

/**
 * One sweep: lists every kind `fn.owns` and hands each object not at rest (each object, when
 * the function checks drift), and each whose recorded inputs changed, to `deliver`, in the order
 * `fn.owns` names the kinds. An object whose record is missing or does not parse is delivered
 * once too: its reconcile writes the record afresh. A read that fails for now and a delivery
 * that answers retry or conflict are tried again with backoff while `policy` allows
 * (sweep-patience.ts); a delivery still failing after that is the next tick's business, so the
 * tick itself is done. A listing still failing fails the tick, which the Broker retries.
 */
export async function sweep(
  fn: OperatorFunction,
  direct: SweepReads,
  deliver: (ce: CloudEvent<unknown>) => Promise<Outcome>,
  now: Date,
  namespace?: string,
  policy: SweepPatience = SWEEP_PATIENCE,
): Promise<Outcome> {
  const patience = patienceOf(policy);
  const reads = patientReads(direct, patience);
  const objects: KubeObject[] = [];
  for (const qualified of fn.owns ?? []) {
    const dot = qualified.indexOf(".");
    const kind = qualified.slice(0, dot);
    const group = qualified.slice(dot + 1);
    objects.push(...(await reads.list(`${group}/${API_VERSION}`, kind, namespace)));
  }
  const unrest = new Set(fn.checksDrift ? objects : objects.filter((o) => !atRest(fn, o, now)));
  const resting = objects.filter((o) => !unrest.has(o));
  const stale = fn.recordsInputs ? await staleInputs(fn, resting, reads) : new Map<KubeObject, Stale>();
  const due = objects.filter((o) => unrest.has(o) || stale.has(o));
  const outcomes = await inBatches(
    due,
    SWEEP_CONCURRENCY,
    async (o) => (await patience.deliver(() => deliver(resyncEvent(o)))).kind,
  );
  const failed = outcomes.filter((k) => k !== "done" && k !== "skipped").length;
  const delivered = fn.checksDrift ? "delivered to check drift" : "not at rest delivered";
  const why = [...stale.values()];
  const count = (s: Stale) => why.filter((w) => w === s).length;
  const inputs = fn.recordsInputs
    ? `, ${count("changed")} whose inputs changed delivered` +
      (count("unrecorded") > 0 ? `, ${count("unrecorded")} without a record of their inputs delivered` : "") +
      (count("unreadable") > 0 ? `, ${count("unreadable")} with an unreadable record of their inputs delivered` : "")
    : "";
  const again = patience.again > 0 ? `, ${patience.again} tried again after a failure` : "";
  return done(`resync: ${objects.length} objects, ${unrest.size} ${delivered}${inputs}, ${failed} not done${again}`);
}
