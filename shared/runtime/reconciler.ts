// The reconciler contract: a kind's reconciler says what it reads, decides and writes; the runtime
// does the rest once for every function (find the object an event or tick names, answer "gone" and
// "being deleted", fan out to the objects a related change leads to, map results to outcomes and
// merge schedules). A function is `defineFunction(name, reconcilers)`.
import type { CloudEvent } from "cloudevents";
import type { Kube } from "../kube/client.ts";
import type { EventRecorder } from "../kube/events.ts";
import { KubeRequestError } from "../kube/errors.ts";
import { describeKey, keyOf, type KubeObject, type ObjectKey } from "../kube/object.ts";
import type { Logger } from "../telemetry/logger.ts";
import type { ObjectRef, OperatorEvent } from "./event.ts";
import { qualifiedKind, type FunctionContext, type OperatorFunction } from "./function.ts";
import { inBatches } from "./in-batches.ts";
import { conflict, done, retry, skipped, withSchedules, type Outcome } from "./outcome.ts";
import { formatRecord, type InputFacet, type InputScope, recordingReads, recordOf, writeRecord } from "./inputs.ts";
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
  /**
   * Another object's change (or a tick naming no object) led here. `gone`: the object whose
   * reconcile woke this one found itself gone or being deleted (what relied on it must look again).
   */
  | { readonly kind: "related"; readonly from: ObjectRef | "tick"; readonly gone?: boolean };

/** What a reconciler's steps get: the clients of this delivery. */
export interface ReconcileContext {
  readonly log: Logger;
  readonly kube: Kube;
  recorder(): Promise<EventRecorder>;
  now(): Date;
  readonly cause: Cause;
  readonly delivery: Delivery;
  /**
   * Whose inputs an object's reconcile records in its status, and of which kinds (for the resync
   * sweep: shared/runtime/inputs.ts). Absent for a function whose sweep re-delivers everything.
   */
  readonly inputs?: InputScope;
  /**
   * Set for `act` only: the record of what this pass observed (shared/runtime/inputs.ts), which a
   * reconciler writing the object's whole status may carry in that write (`writeStatus`'s
   * `record`) and answer `recorded`, saving the runtime a status write of its own after act.
   */
  readonly record?: InputsRecord;
}

/** A reconcile's record of its inputs, as `status.inputs.<function>` holds it. */
export interface InputsRecord {
  readonly function: string;
  readonly text: string;
}

/** What lives for one delivery, however many objects it reconciles. */
export interface Delivery {
  /**
   * The value `make` gives, made once per delivery under `name`: a reading several objects share
   * within the delivery and that must not outlive it (a roster read once, counted by every account).
   */
  once<T>(name: string, make: () => T): T;
  /** Whether `key` may still be reconciled in this delivery: each object once, and a bounded number in all. */
  visit(key: Next): boolean;
}

/**
 * An object to reconcile next in the same delivery. `again`: a second visit of an object this
 * delivery may have reconciled already, because what it waits for is written after its visit (a
 * user waiting for its account to revoke its old key); made once, as an object of its own.
 */
export type Next = ObjectKey & { readonly again?: boolean };

/** A bound on one delivery's fan-out; the rest is reached by the objects' own events. */
const MOST_OBJECTS = 500;

export function newDelivery(): Delivery {
  const made = new Map<string, unknown>();
  const visited = new Set<string>();
  return {
    once<T>(name: string, make: () => T): T {
      if (!made.has(name)) made.set(name, make());
      return made.get(name) as T;
    },
    visit(key) {
      const id = `${key.apiVersion}/${key.kind}/${key.namespace}/${key.name}${key.again ? " (again)" : ""}`;
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
  /**
   * Acted on (or already held). `wake`: objects whose own reconcile this one's result concerns.
   * `recorded`: act's own status write carried the context's `record`.
   */
  | {
      readonly kind: "done";
      readonly summary?: string;
      readonly schedules?: readonly ScheduleDecision[];
      readonly wake?: readonly Next[];
      readonly recorded?: boolean;
    }
  /** Nothing to do (an echo, a refusal held until an edit, an object gone); it may still `wake` others. */
  | {
      readonly kind: "skipped";
      readonly reason: string;
      readonly schedules?: readonly ScheduleDecision[];
      readonly wake?: readonly Next[];
    }
  /** A guarded write lost to another delivery: its decision stands; answer 409 so this one is retried. */
  | { readonly kind: "conflict"; readonly message: string; readonly schedules?: readonly ScheduleDecision[] }
  /** Transient: try again with the Broker's backoff. */
  | { readonly kind: "again"; readonly message: string; readonly schedules?: readonly ScheduleDecision[] };

/**
 * Act's ask to look at the object again within this reconcile, while its reconciler's `passes`
 * last: it is read, observed (told what act did in the passes before) and decided again. `carry`
 * is what act did (a push and what the servers answered), for the next observe.
 */
export interface LookAgain<Carry> {
  readonly kind: "look-again";
  readonly carry: Carry;
}

/** Objects of a reconciler's kind that a change of another kind (or a tick naming no object) leads to. */
export type Related = KindRelated | TickRelated;

/** Objects a change of another kind leads to. */
export interface KindRelated {
  readonly kind: KindRef;
  /**
   * The objects to reconcile for this event of `kind` (the object may be gone already). Each
   * goes to the function's reconciler of its kind (this one's, when none is).
   */
  map(ref: ObjectRef, context: RelatedContext): Promise<readonly ObjectKey[]>;
}

/** Objects a tick naming no object leads to. */
export interface TickRelated {
  readonly tick: true;
  /** The objects a PingSource's work leads to (each to its kind's reconciler), or undefined when the tick is not about them. */
  map(work: Readonly<Record<string, unknown>>, context: RelatedContext): Promise<readonly ObjectKey[] | undefined>;
  /**
   * After those objects were reconciled: the schedules the tick itself decides from what is
   * left (a poll that ends once nothing needs it). They come last, so a drop wins.
   */
  afterwards?(
    work: Readonly<Record<string, unknown>>,
    keys: readonly ObjectKey[],
    context: RelatedContext,
  ): Promise<readonly ScheduleDecision[]>;
}

export interface RelatedContext {
  readonly kube: Kube;
  now(): Date;
  /** The delivery the mapping is for: a reading several mappings share (a listing) is made once. */
  readonly delivery: Delivery;
  /** The PingSource a tick came from (`namespace/name`), when it says. */
  readonly pingSource?: string;
}

export interface Reconciler<T extends KubeObject, Observed, Decision extends Decided, Carry = never> {
  readonly kind: KindRef;
  /** Whether this function writes the kind's status (the resync sweep re-delivers those not at rest). Default true. */
  readonly ownsStatus?: boolean;
  readonly related?: readonly Related[];
  /**
   * Passes one reconcile may take (default 1): while act answers `look-again` and passes are
   * left, the object is read, observed, decided and acted on again; after the last, its decision
   * stands as done (the decision's polls look again later).
   */
  readonly passes?: number;
  /**
   * Whether an object being deleted still goes through prepare, observe, decide and act, rather
   * than `finalize`: a finalizer whose release is itself decided from what is observed (a user's
   * drain, a cluster's data kept until its servers are evacuated), and whose wait keeps the
   * object's schedules, which `schedulesOf` would drop.
   */
  reconcilesWhileDeleting?(object: T): boolean;
  /**
   * Objects that read this one, reconciled after it in the same delivery whatever its reconcile
   * came to (it may be gone): the echo of its status write is dropped, so they learn of it only
   * this way. Read after the reconcile, so they name what it wrote.
   */
  dependents?(key: ObjectKey, context: ReconcileContext): Promise<readonly Next[]>;
  /** Reads the object an event names; default a GET. May take up the event's payload where a guarded write proves it current. */
  load?(key: ObjectKey, context: ReconcileContext): Promise<T | undefined>;
  /** The schedules that go when the object does (gone, or being deleted). */
  schedulesOf?(key: ObjectKey): readonly ScheduleDecision[];
  /**
   * The object is gone (or being deleted, without `finalize`): release what this process holds
   * for it, `wake` what relied on it. Without it, a skip.
   */
  gone?(key: ObjectKey, context: ReconcileContext): Promise<Acted>;
  /** An object being deleted: release what it holds. Without it, deletion is left to the API server. */
  finalize?(object: T, context: ReconcileContext): Promise<Acted>;
  /**
   * Guarded claims that must hold before anything is observed (a finalizer): the object as
   * written, or a result to stop at (a conflict, or an answer the write's own event will carry on).
   */
  prepare?(object: T, context: ReconcileContext): Promise<{ readonly kind: "ready"; readonly object: T } | Acted>;
  /** Reads only. `carried`: what act did in this reconcile's earlier passes, oldest first. */
  observe(object: T, context: ReconcileContext, carried: readonly Carry[]): Promise<Observed>;
  /** Pure: plain data in and out. */
  decide(observed: Observed, now: Date): Decision;
  /** Claims first (a guarded status write), then acts on the decision. */
  act(object: T, decision: Decision, context: ReconcileContext): Promise<Acted | LookAgain<Carry>>;
}

// The runtime holds reconcilers of different types side by side; each is only ever called with
// what its own steps produced, so the element types do not need to be known here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyReconciler = Reconciler<any, any, any, any>;

/** Objects reconciled at once when one change leads to many. */
const fanOutWidth = 8;

/** Options of a function that the reconcilers do not say. */
export interface FunctionOptions {
  /** A resync tick re-delivers every owned object, at rest or not (state outside the API server drifts). */
  readonly checksDrift?: boolean;
  readonly actionAnnotations?: readonly string[];
  readonly caresAbout?: OperatorFunction["caresAbout"];
  readonly showsFailure?: OperatorFunction["showsFailure"];
  /** Releases what the function keeps across events (NATS connections). */
  shutdown?(): Promise<void>;
  /**
   * Reconcile what a delivery leads to one object at a time, breadth first, in the order found
   * (default: up to 8 at once, each object's wakes right after it): objects that read what the
   * ones before them wrote see it within the delivery (an account's users after the account).
   */
  readonly inOrder?: boolean;
  /**
   * Kinds whose reads a reconcile records as its inputs beside those the function takes events of
   * (shared/runtime/inputs.ts): what it reads whose change reaches it only through another function.
   */
  readonly inputKinds?: readonly KindRef[];
  /** Inputs read through a facet: the part of an object a reader's decision depends on (shared/runtime/inputs.ts). */
  readonly inputFacets?: readonly InputFacet[];
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
  const kinds = [...new Set([...own, ...related])];
  // A function whose sweep re-delivers every object needs no record of what changed.
  const inputs: InputScope | undefined = options.checksDrift
    ? undefined
    : {
        function: name,
        kinds: new Set([...kinds, ...(options.inputKinds ?? []).map(qualified)]),
        ...(options.inputFacets ? { facets: options.inputFacets } : {}),
      };
  return {
    name,
    kinds,
    handlesPings: true,
    owns: reconcilers.filter((r) => r.ownsStatus !== false).map((r) => qualified(r.kind)),
    ...(options.checksDrift ? { checksDrift: true } : { recordsInputs: true }),
    ...(options.inputFacets && !options.checksDrift ? { inputFacets: options.inputFacets } : {}),
    ...(options.actionAnnotations ? { actionAnnotations: options.actionAnnotations } : {}),
    ...(options.caresAbout ? { caresAbout: options.caresAbout } : {}),
    ...(options.showsFailure ? { showsFailure: options.showsFailure } : {}),
    handle: (context, cloudEvent) => route(name, reconcilers, context, cloudEvent, options.inOrder === true, inputs),
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
  };
}

async function route(
  name: string,
  reconcilers: readonly AnyReconciler[],
  context: FunctionContext,
  cloudEvent: CloudEvent<unknown>,
  inOrder: boolean,
  inputs: InputScope | undefined,
): Promise<Outcome> {
  const event = context.event;
  const kube = await context.kube();
  const base = {
    log: context.log,
    kube,
    recorder: () => context.recorder(),
    now: () => context.now(),
    delivery: newDelivery(),
    ...(inputs ? { inputs } : {}),
  };
  if (event.source === "ping")
    return routeTick(
      name,
      reconcilers,
      event.work,
      { ...base, ...(event.pingSource === undefined ? {} : { pingSource: event.pingSource }) },
      inOrder,
    );

  const ref = event.ref;
  const owner = reconcilers.find((r) => r.kind.apiVersion === ref.apiVersion && r.kind.kind === ref.kind);
  if (owner) {
    const cause: Cause = isResyncDelivery(cloudEvent)
      ? { kind: "tick" }
      : { kind: "event", event, data: cloudEvent.data };
    if (inOrder) return firstAndRest(await inTurn(reconcilers, [{ reconciler: owner, key: ref }], { ...base, cause }));
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
    l.keys.map((key) => ({ reconciler: reconcilerOf(reconcilers, key) ?? l.reconciler, key })),
  );
  const cause: Cause = { kind: "related", from: ref };
  const reconciled = await (inOrder ? inTurn : fanOut)(reconcilers, keys, { ...base, cause });
  return fannedOut(relatedAnswer(name, ref, reconciled), reconciled);
}

/**
 * A related change's own answer: done when it led to an object acted on; skipped, saying why,
 * when it led to none (a Secret no object owns) or every object it led to was left alone.
 */
function relatedAnswer(name: string, ref: ObjectRef, outcomes: readonly Outcome[]): Outcome {
  if (outcomes.length === 0) return skipped(`${describeKey(ref)} leads to nothing ${name} reconciles`);
  const reasons = outcomes.flatMap((o) => (o.kind === "skipped" ? [o.reason] : []));
  return reasons.length === outcomes.length ? skipped(reasons.join("; ")) : done(`${describeKey(ref)} changed`);
}

/**
 * A ping: the object its work names, or the objects the tick mappings lead to. Every mapping that
 * answers runs, in the order the reconcilers are given, each after the objects of the one before
 * were reconciled (a later mapping reads what the earlier objects left).
 */
async function routeTick(
  name: string,
  reconcilers: readonly AnyReconciler[],
  work: Readonly<Record<string, unknown>>,
  base: Omit<ReconcileContext, "cause"> & { readonly pingSource?: string },
  inOrder: boolean,
): Promise<Outcome> {
  const { kind, namespace, name: object } = work;
  const named = reconcilers.find((r) => r.kind.kind === kind);
  if (named && typeof namespace === "string" && typeof object === "string" && namespace && object) {
    const key = { apiVersion: named.kind.apiVersion, kind: named.kind.kind, namespace, name: object };
    const context: ReconcileContext = { ...base, cause: { kind: "tick" } };
    if (inOrder) return firstAndRest(await inTurn(reconcilers, [{ reconciler: named, key }], context));
    return reconcile(named, reconcilers, key, context);
  }
  const outcomes: Outcome[] = [];
  const checked: string[] = [];
  const last: ScheduleDecision[] = [];
  for (const reconciler of reconcilers) {
    for (const rel of reconciler.related ?? []) {
      if ("kind" in rel) continue;
      const keys = await rel.map(work, base);
      if (keys === undefined) continue;
      outcomes.push(
        ...(await (inOrder ? inTurn : fanOut)(
          reconcilers,
          keys.map((key) => ({ reconciler: reconcilerOf(reconcilers, key) ?? reconciler, key })),
          { ...base, cause: { kind: "related", from: "tick" } },
        )),
      );
      checked.push(`${keys.length} ${reconciler.kind.kind}`);
      if (rel.afterwards) last.push(...(await rel.afterwards(work, keys, base)));
    }
  }
  if (checked.length === 0)
    return skipped(`the tick is not for ${name}: ${kind === undefined ? "it names no kind" : `${String(kind)}`}`);
  return withSchedules(fannedOut(done(`tick: ${checked.join(", ")} checked; ${tally(outcomes)}`), outcomes), last);
}

/** The reconciler of a key's kind: a mapping may lead to objects of several of the function's kinds. */
const reconcilerOf = (reconcilers: readonly AnyReconciler[], key: ObjectKey) =>
  reconcilers.find((r) => r.kind.apiVersion === key.apiVersion && r.kind.kind === key.kind);

/** One object through its reconciler, then the objects its result wakes and its dependents. */
async function reconcile(
  reconciler: AnyReconciler,
  reconcilers: readonly AnyReconciler[],
  key: Next,
  context: ReconcileContext,
): Promise<Outcome> {
  if (!context.delivery.visit(key)) return skipped(`${describeKey(key)} is reconciled once per delivery`);
  const { acted, gone } = await pass(reconciler, key, context);
  const own = outcomeOf(acted);
  const next = await nextOf(reconciler, reconcilers, key, acted, context);
  if (next.length === 0) return own;
  return fannedOut(own, await fanOut(reconcilers, next, { ...context, cause: relatedTo(key, gone) }));
}

const relatedTo = (key: ObjectKey, gone: boolean): Cause => ({
  kind: "related",
  from: key,
  ...(gone ? { gone: true } : {}),
});

/** What an object's reconcile leads to: the objects its result wakes, then its dependents. */
async function nextOf(
  reconciler: AnyReconciler,
  reconcilers: readonly AnyReconciler[],
  key: ObjectKey,
  acted: Acted | undefined,
  context: ReconcileContext,
): Promise<{ reconciler: AnyReconciler; key: Next }[]> {
  const woken = acted?.kind === "done" || acted?.kind === "skipped" ? (acted.wake ?? []) : [];
  const dependents = reconciler.dependents ? await reconciler.dependents(key, context) : [];
  return [...woken, ...dependents].flatMap((k) => {
    const r = reconcilerOf(reconcilers, k);
    return r ? [{ reconciler: r, key: k }] : [];
  });
}

/**
 * The delivery in order: a queue, each object reconciled after the one before it, and what it
 * leads to put at the end. One object's failure stays its own: what it leads to still follows.
 */
async function inTurn(
  reconcilers: readonly AnyReconciler[],
  items: readonly { reconciler: AnyReconciler; key: Next }[],
  context: ReconcileContext,
): Promise<Outcome[]> {
  const queue = items.map((item) => ({ ...item, cause: context.cause }));
  const outcomes: Outcome[] = [];
  for (let item = queue.shift(); item; item = queue.shift()) {
    if (!context.delivery.visit(item.key)) continue;
    const here: ReconcileContext = { ...context, cause: item.cause };
    let acted: Acted | undefined;
    let gone = false;
    try {
      ({ acted, gone } = await pass(item.reconciler, item.key, here));
      outcomes.push(outcomeOf(acted));
    } catch (error) {
      outcomes.push(failed(item.key, error, context));
    }
    const next = await nextOf(item.reconciler, reconcilers, item.key, acted, here);
    queue.push(...next.map((n) => ({ ...n, cause: relatedTo(item.key, gone) })));
  }
  return outcomes;
}

/** The answer of the object reconciled first, with the rest's. */
function firstAndRest([own, ...rest]: readonly Outcome[]): Outcome {
  return own ? fannedOut(own, rest) : skipped("nothing was reconciled");
}

/**
 * The passes of one object: read it, answer "gone" and "being deleted", prepare, observe, decide,
 * act. The decision's schedules are kept whatever acting came to (a conflict that knows its poll
 * says it too); acting's own come after them.
 */
export async function reconcileObject<T extends KubeObject, O, D extends Decided, C>(
  reconciler: Reconciler<T, O, D, C>,
  key: ObjectKey,
  context: ReconcileContext,
): Promise<Acted> {
  return (await pass(reconciler, key, context)).acted;
}

/**
 * One object's passes, and whether it was found gone or being deleted (what it wakes is told so).
 * While act asks to look again and passes are left, the object is read afresh, observed (told what
 * act did before), decided and acted on again; after the last, its decision stands as done.
 */
async function pass<T extends KubeObject, O, D extends Decided, C>(
  reconciler: Reconciler<T, O, D, C>,
  key: ObjectKey,
  context: ReconcileContext,
): Promise<{ acted: Acted; gone: boolean }> {
  const goneSchedules = reconciler.schedulesOf?.(key) ?? [];
  const ended = async (reason: string) => ({
    acted: reconciler.gone
      ? withActedSchedules(await reconciler.gone(key, context), goneSchedules)
      : { kind: "skipped" as const, reason, schedules: goneSchedules },
    gone: true,
  });
  const carried: C[] = [];
  for (let pass = 1; ; pass++) {
    const found = reconciler.load ? await reconciler.load(key, context) : await context.kube.get<T>(key);
    if (!found) return ended(`${describeKey(key)} is gone`);
    if (found.metadata.deletionTimestamp && !reconciler.reconcilesWhileDeleting?.(found)) {
      if (!reconciler.finalize) return ended(`${describeKey(key)} is being deleted`);
      return { acted: withActedSchedules(await reconciler.finalize(found, context), goneSchedules), gone: true };
    }
    let object = found;
    if (reconciler.prepare) {
      const prepared = await reconciler.prepare(found, context);
      if (prepared.kind !== "ready") return { acted: prepared, gone: false };
      object = prepared.object;
    }
    const recording =
      context.inputs && reconciler.ownsStatus !== false
        ? recordingReads(context.kube, object, context.inputs)
        : undefined;
    const observed = await reconciler.observe(
      object,
      recording ? { ...context, kube: recording.kube } : context,
      carried,
    );
    const decision = reconciler.decide(observed, context.now());
    // Observe has read all it reads: the record is known before act, which may carry it.
    const record =
      recording && context.inputs
        ? { function: context.inputs.function, text: formatRecord(recording.reads(), object.metadata.generation) }
        : undefined;
    const result = await reconciler.act(object, decision, record ? { ...context, record } : context);
    if (result.kind === "look-again" && pass < (reconciler.passes ?? 1)) {
      carried.push(result.carry);
      continue;
    }
    const acted: Acted = result.kind === "look-again" ? { kind: "done" } : result;
    const carriedRecord = acted.kind === "done" && acted.recorded === true;
    if (record && !carriedRecord && (acted.kind === "done" || acted.kind === "skipped"))
      await keepRecord(context, object, record.function, record.text);
    const schedules = [...(decision.schedules ?? []), ...(acted.schedules ?? [])];
    if (acted.kind === "done")
      return { acted: { ...acted, summary: acted.summary ?? decision.summary, schedules }, gone: false };
    return { acted: { ...acted, schedules }, gone: false };
  }
}

/**
 * Records what the reconcile read (unless the object shows it already). A record that cannot be
 * written is the sweep's business: the object is reconciled again on its next tick.
 */
async function keepRecord(context: ReconcileContext, object: KubeObject, fn: string, record: string): Promise<void> {
  if (recordOf(object, fn) === record) return;
  try {
    await writeRecord(context.kube, object, fn, record);
  } catch (error) {
    if (error instanceof KubeRequestError && error.isNotFound) return;
    context.log.warn({ err: error, object: describeKey(keyOf(object)) }, "the reconcile's inputs were not recorded");
  }
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
  items: readonly { reconciler: AnyReconciler; key: Next }[],
  context: ReconcileContext,
): Promise<Outcome[]> {
  return inBatches(items, fanOutWidth, async ({ reconciler, key }) => {
    try {
      return await reconcile(reconciler, reconcilers, key, context);
    } catch (error) {
      return failed(key, error, context);
    }
  });
}

/** One object's failure stays its own: the rest are still reconciled, and this event is retried. */
function failed(key: ObjectKey, error: unknown, context: ReconcileContext): Outcome {
  context.log.warn({ err: error, object: describeKey(key) }, "reconcile of a related object failed");
  return retry(`${describeKey(key)}: ${error instanceof Error ? error.message : String(error)}`);
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
  // The retry stands in for the object's own answer: what its decision keeps or drops still holds.
  return withSchedules(answer, answer === own ? [] : (own.schedules ?? []), ...outcomes.map((o) => o.schedules ?? []));
}

function tally(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(", ") || "nothing";
}
