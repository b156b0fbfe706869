// The reconciler contract: a kind's reconciler says what it reads, decides and writes; the runtime
// does the rest once for every function (find the object an event or tick names, answer "gone" and
// "being deleted", fan out to the objects a related change leads to, map results to outcomes and
// merge schedules). A function is `defineFunction(name, reconcilers)`.
import type { CloudEvent } from "cloudevents";
import type { Kube } from "../kube/client.ts";
import type { EventRecorder } from "../kube/events.ts";
import { describeKey, type KubeObject, type ObjectKey } from "../kube/object.ts";
import type { Logger } from "../telemetry/logger.ts";
import type { ObjectRef, OperatorEvent } from "./event.ts";
import { qualifiedKind, type FunctionContext, type OperatorFunction } from "./function.ts";
import { inBatches } from "./in-batches.ts";
import { conflict, done, retry, skipped, withSchedules, type Outcome } from "./outcome.ts";
import { isResyncDelivery } from "./resync.ts";
import type { ScheduleDecision } from "./schedule.ts";

/** The kind a reconciler reconciles, as the API names it. */
export interface KindRef {
  readonly apiVersion: string;
  readonly kind: string;
}

type ApiServerEvent = Extract<OperatorEvent, { source: "apiserver" }>;

/** Why an object is reconciled in this delivery. */
export type Cause =
  /** Its own ApiServerSource event; `data` is what the CloudEvent carried (the object, in Resource mode). */
  | { readonly kind: "event"; readonly event: ApiServerEvent; readonly data: unknown }
  /** A PingSource naming it, or the resync sweep re-delivering it: compare with the world even if fresh. */
  | { readonly kind: "tick" }
  /** Another object's change (or a tick naming no object) led here. */
  | { readonly kind: "related"; readonly from: ObjectRef | "tick" };

/** What a reconciler's steps get: the clients of this delivery. */
export interface ReconcileContext {
  readonly log: Logger;
  readonly kube: Kube;
  recorder(): Promise<EventRecorder>;
  now(): Date;
  readonly cause: Cause;
  readonly delivery: Delivery;
}

/** What lives for one delivery, however many objects it reconciles. */
export interface Delivery {
  /**
   * The value `make` gives, made once per delivery under `name`: a reading several objects share
   * within the delivery and that must not outlive it (a roster read once, counted by every account).
   */
  once<T>(name: string, make: () => T): T;
  /** Whether `key` may still be reconciled in this delivery: each object once, and a bounded number in all. */
  visit(key: ObjectKey): boolean;
}

/** A bound on one delivery's fan-out; the rest is reached by the objects' own events. */
const MOST_OBJECTS = 500;

function newDelivery(): Delivery {
  const made = new Map<string, unknown>();
  const visited = new Set<string>();
  return {
    once<T>(name: string, make: () => T): T {
      if (!made.has(name)) made.set(name, make());
      return made.get(name) as T;
    },
    visit(key) {
      const id = `${key.apiVersion}/${key.kind}/${key.namespace}/${key.name}`;
      if (visited.has(id) || visited.size >= MOST_OBJECTS) return false;
      visited.add(id);
      return true;
    },
  };
}

/** What `decide` comes to: a summary for the outcome, and the schedules the decision keeps or drops. */
export interface Decided {
  readonly summary: string;
  readonly schedules?: readonly ScheduleDecision[];
}

/** What acting came to; the one result type every reconciler step returns. */
export type Acted =
  /** Acted on (or already held). `wake`: objects whose own reconcile this one's result concerns. */
  | {
      readonly kind: "done";
      readonly summary?: string;
      readonly schedules?: readonly ScheduleDecision[];
      readonly wake?: readonly ObjectKey[];
    }
  /** Nothing to do (an echo, a refusal held until an edit). */
  | { readonly kind: "skipped"; readonly reason: string; readonly schedules?: readonly ScheduleDecision[] }
  /** A guarded write lost to another delivery: its decision stands; answer 409 so this one is retried. */
  | { readonly kind: "conflict"; readonly message: string; readonly schedules?: readonly ScheduleDecision[] }
  /** Transient: try again with the Broker's backoff. */
  | { readonly kind: "again"; readonly message: string; readonly schedules?: readonly ScheduleDecision[] };

/** Objects of a reconciler's kind that a change of another kind (or a tick naming no object) leads to. */
export type Related =
  | {
      readonly kind: KindRef;
      /** The objects to reconcile for this event of `kind` (the object may be gone already). */
      map(ref: ObjectRef, context: RelatedContext): Promise<readonly ObjectKey[]>;
    }
  | {
      readonly tick: true;
      /** The objects a PingSource's work leads to, or undefined when the tick is not about them. */
      map(work: Readonly<Record<string, unknown>>, context: RelatedContext): Promise<readonly ObjectKey[] | undefined>;
    };

export interface RelatedContext {
  readonly kube: Kube;
  now(): Date;
}

export interface Reconciler<T extends KubeObject, Observed, Decision extends Decided> {
  readonly kind: KindRef;
  /** Whether this function writes the kind's status (the resync sweep re-delivers those not at rest). Default true. */
  readonly ownsStatus?: boolean;
  readonly related?: readonly Related[];
  /** Reads the object an event names; default a GET. May take up the event's payload where a guarded write proves it current. */
  load?(key: ObjectKey, context: ReconcileContext): Promise<T | undefined>;
  /** The schedules that go when the object does (gone, or being deleted). */
  schedulesOf?(key: ObjectKey): readonly ScheduleDecision[];
  /** An object being deleted: release what it holds. Without it, deletion is left to the API server. */
  finalize?(object: T, context: ReconcileContext): Promise<Acted>;
  /**
   * Whether an object being deleted still goes through prepare, observe, decide and act, rather
   * than `finalize`: a finalizer whose release is itself decided from what is observed (and whose
   * wait keeps the object's schedules, which `schedulesOf` would drop).
   */
  reconcilesWhileDeleting?(object: T): boolean;
  /**
   * Guarded claims that must hold before anything is observed (a finalizer): the object as
   * written, or a result to stop at (a conflict, or an answer the write's own event will carry on).
   */
  prepare?(object: T, context: ReconcileContext): Promise<{ readonly kind: "ready"; readonly object: T } | Acted>;
  /** Reads only. */
  observe(object: T, context: ReconcileContext): Promise<Observed>;
  /** Pure: plain data in and out. */
  decide(observed: Observed, now: Date): Decision;
  /** Claims first (a guarded status write), then acts on the decision. */
  act(object: T, decision: Decision, context: ReconcileContext): Promise<Acted>;
}

// The runtime holds reconcilers of different types side by side; each is only ever called with
// what its own steps produced, so the element types do not need to be known here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyReconciler = Reconciler<any, any, any>;

/** Objects reconciled at once when one change leads to many. */
const fanOutWidth = 8;

/** Options of a function that the reconcilers do not say. */
export interface FunctionOptions {
  /** A resync tick re-delivers every owned object, at rest or not (state outside the API server drifts). */
  readonly checksDrift?: boolean;
  readonly actionAnnotations?: readonly string[];
  readonly caresAbout?: OperatorFunction["caresAbout"];
  /** Releases what the function keeps across events (NATS connections). */
  shutdown?(): Promise<void>;
}

const qualified = (kind: KindRef) => qualifiedKind(kind.apiVersion, kind.kind);

/** One function of reconcilers: the deployment unit (one Knative Service), handling every kind they name. */
export function defineFunction(
  name: string,
  reconcilers: readonly AnyReconciler[],
  options: FunctionOptions = {},
): OperatorFunction {
  const own = reconcilers.map((r) => qualified(r.kind));
  const related = reconcilers.flatMap((r) => r.related ?? []).flatMap((r) => ("kind" in r ? [qualified(r.kind)] : []));
  return {
    name,
    kinds: [...new Set([...own, ...related])],
    handlesPings: true,
    owns: reconcilers.filter((r) => r.ownsStatus !== false).map((r) => qualified(r.kind)),
    ...(options.checksDrift ? { checksDrift: true } : {}),
    ...(options.actionAnnotations ? { actionAnnotations: options.actionAnnotations } : {}),
    ...(options.caresAbout ? { caresAbout: options.caresAbout } : {}),
    handle: (context, cloudEvent) => route(name, reconcilers, context, cloudEvent),
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
  };
}

async function route(
  name: string,
  reconcilers: readonly AnyReconciler[],
  context: FunctionContext,
  cloudEvent: CloudEvent<unknown>,
): Promise<Outcome> {
  const event = context.event;
  const kube = await context.kube();
  const base = {
    log: context.log,
    kube,
    recorder: () => context.recorder(),
    now: () => context.now(),
    delivery: newDelivery(),
  };
  if (event.source === "ping") return routeTick(name, reconcilers, event.work, base);

  const ref = event.ref;
  const owner = reconcilers.find((r) => r.kind.apiVersion === ref.apiVersion && r.kind.kind === ref.kind);
  if (owner) {
    const cause: Cause = isResyncDelivery(cloudEvent)
      ? { kind: "tick" }
      : { kind: "event", event, data: cloudEvent.data };
    return reconcile(owner, reconcilers, ref, { ...base, cause });
  }
  const leads = reconcilers.flatMap((r) =>
    (r.related ?? []).flatMap((rel) =>
      "kind" in rel && rel.kind.apiVersion === ref.apiVersion && rel.kind.kind === ref.kind
        ? [{ reconciler: r, map: rel.map }]
        : [],
    ),
  );
  if (leads.length === 0) return skipped(`${name} does not handle ${ref.kind}`);
  const keys = (await Promise.all(leads.map(async (l) => ({ ...l, keys: await l.map(ref, base) })))).flatMap((l) =>
    l.keys.map((key) => ({ reconciler: l.reconciler, key })),
  );
  const cause: Cause = { kind: "related", from: ref };
  return fannedOut(done(`${describeKey(ref)} changed`), await fanOut(reconcilers, keys, { ...base, cause }));
}

/** A ping: the object its work names, or the objects a reconciler's tick mapping leads to. */
async function routeTick(
  name: string,
  reconcilers: readonly AnyReconciler[],
  work: Readonly<Record<string, unknown>>,
  base: Omit<ReconcileContext, "cause">,
): Promise<Outcome> {
  const { kind, namespace, name: object } = work;
  const named = reconcilers.find((r) => r.kind.kind === kind);
  if (named && typeof namespace === "string" && typeof object === "string" && namespace && object) {
    const key = { apiVersion: named.kind.apiVersion, kind: named.kind.kind, namespace, name: object };
    return reconcile(named, reconcilers, key, { ...base, cause: { kind: "tick" } });
  }
  for (const reconciler of reconcilers) {
    for (const rel of reconciler.related ?? []) {
      if ("kind" in rel) continue;
      const keys = await rel.map(work, base);
      if (keys === undefined) continue;
      const outcomes = await fanOut(
        reconcilers,
        keys.map((key) => ({ reconciler, key })),
        { ...base, cause: { kind: "related", from: "tick" } },
      );
      return fannedOut(done(`tick: ${keys.length} ${reconciler.kind.kind} checked; ${tally(outcomes)}`), outcomes);
    }
  }
  return skipped(`the tick is not for ${name}: ${kind === undefined ? "it names no kind" : `${String(kind)}`}`);
}

/** One object through its reconciler, then the objects its result wakes. */
async function reconcile(
  reconciler: AnyReconciler,
  reconcilers: readonly AnyReconciler[],
  key: ObjectKey,
  context: ReconcileContext,
): Promise<Outcome> {
  if (!context.delivery.visit(key)) return skipped(`${describeKey(key)} is reconciled once per delivery`);
  const acted = await reconcileObject(reconciler, key, context);
  const own = outcomeOf(acted);
  if (acted.kind !== "done" || !acted.wake || acted.wake.length === 0) return own;
  const woken = acted.wake.flatMap((k) => {
    const r = reconcilers.find((c) => c.kind.apiVersion === k.apiVersion && c.kind.kind === k.kind);
    return r ? [{ reconciler: r, key: k }] : [];
  });
  return fannedOut(own, await fanOut(reconcilers, woken, { ...context, cause: { kind: "related", from: key } }));
}

/**
 * The passes of one object: read it, answer "gone" and "being deleted", prepare, observe, decide,
 * act. The decision's schedules are kept whatever acting came to (a conflict that knows its poll
 * says it too); acting's own come after them.
 */
export async function reconcileObject<T extends KubeObject, O, D extends Decided>(
  reconciler: Reconciler<T, O, D>,
  key: ObjectKey,
  context: ReconcileContext,
): Promise<Acted> {
  const gone = reconciler.schedulesOf?.(key) ?? [];
  const found = reconciler.load ? await reconciler.load(key, context) : await context.kube.get<T>(key);
  if (!found) return { kind: "skipped", reason: `${describeKey(key)} is gone`, schedules: gone };
  if (found.metadata.deletionTimestamp && !reconciler.reconcilesWhileDeleting?.(found)) {
    if (!reconciler.finalize)
      return { kind: "skipped", reason: `${describeKey(key)} is being deleted`, schedules: gone };
    return withActedSchedules(await reconciler.finalize(found, context), gone);
  }
  let object = found;
  if (reconciler.prepare) {
    const prepared = await reconciler.prepare(found, context);
    if (prepared.kind !== "ready") return prepared;
    object = prepared.object;
  }
  const observed = await reconciler.observe(object, context);
  const decision = reconciler.decide(observed, context.now());
  const acted = await reconciler.act(object, decision, context);
  const schedules = [...(decision.schedules ?? []), ...(acted.schedules ?? [])];
  if (acted.kind === "done") return { ...acted, summary: acted.summary ?? decision.summary, schedules };
  return { ...acted, schedules };
}

function withActedSchedules(acted: Acted, later: readonly ScheduleDecision[]): Acted {
  return { ...acted, schedules: [...(acted.schedules ?? []), ...later] };
}

export function outcomeOf(acted: Acted): Outcome {
  const schedules = acted.schedules ?? [];
  switch (acted.kind) {
    case "done":
      return withSchedules(done(acted.summary), schedules);
    case "skipped":
      return withSchedules(skipped(acted.reason), schedules);
    case "conflict":
      return withSchedules(conflict(acted.message), schedules);
    case "again":
      return withSchedules(retry(acted.message), schedules);
  }
}

async function fanOut(
  reconcilers: readonly AnyReconciler[],
  items: readonly { reconciler: AnyReconciler; key: ObjectKey }[],
  context: ReconcileContext,
): Promise<Outcome[]> {
  return inBatches(items, fanOutWidth, async ({ reconciler, key }) => {
    try {
      return await reconcile(reconciler, reconcilers, key, context);
    } catch (error) {
      // One object's failure stays its own: the rest are still reconciled, and this event is retried.
      context.log.warn({ err: error, object: describeKey(key) }, "reconcile of a related object failed");
      return retry(`${describeKey(key)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/**
 * The answer to an event that led to other objects: its own, unless one of them needs another try,
 * in which case the event is retried (with the Broker's backoff) so they are reconciled again.
 * Either way it carries the schedules they asked for.
 */
function fannedOut(own: Outcome, outcomes: readonly Outcome[]): Outcome {
  const failed = outcomes.filter((o) => o.kind === "retry" || o.kind === "conflict");
  const answer =
    failed.length === 0
      ? own
      : retry(`${failed.length} of ${outcomes.length} related objects need another try: ${tally(outcomes)}`);
  return withSchedules(answer, ...outcomes.map((o) => o.schedules ?? []));
}

function tally(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(", ") || "nothing";
}
