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

function newDelivery(): Delivery {
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
  /** Acted on (or already held). `wake`: objects whose own reconcile this one's result concerns. */
  | {
      readonly kind: "done";
      readonly summary?: string;
      readonly schedules?: readonly ScheduleDecision[];
      readonly wake?: readonly Next[];
    }
  /** Nothing to do (an echo, a refusal held until an edit). */
  | { readonly kind: "skipped"; readonly reason: string; readonly schedules?: readonly ScheduleDecision[] }
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
  /** The delivery the mapping is for: a reading several mappings share (a listing) is made once. */
  readonly delivery: Delivery;
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
   * Whether an object being deleted is reconciled like any other, its decision releasing what it
   * holds (its finalizer among it), rather than by `finalize`. Default false.
   */
  readonly reconcilesDeletion?: boolean;
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
  /**
   * Reconcile what a delivery leads to one object at a time, breadth first, in the order found
   * (default: up to 8 at once, each object's wakes right after it): objects that read what the
   * ones before them wrote see it within the delivery (an account's users after the account).
   */
  readonly inOrder?: boolean;
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
    handle: (context, cloudEvent) => route(name, reconcilers, context, cloudEvent, options.inOrder === true),
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
  };
}

async function route(
  name: string,
  reconcilers: readonly AnyReconciler[],
  context: FunctionContext,
  cloudEvent: CloudEvent<unknown>,
  inOrder: boolean,
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
  if (event.source === "ping") return routeTick(name, reconcilers, event.work, base, inOrder);

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
    l.keys.map((key) => ({ reconciler: l.reconciler, key })),
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

/** A ping: the object its work names, or the objects a reconciler's tick mapping leads to. */
async function routeTick(
  name: string,
  reconcilers: readonly AnyReconciler[],
  work: Readonly<Record<string, unknown>>,
  base: Omit<ReconcileContext, "cause">,
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
  for (const reconciler of reconcilers) {
    for (const rel of reconciler.related ?? []) {
      if ("kind" in rel) continue;
      const keys = await rel.map(work, base);
      if (keys === undefined) continue;
      const outcomes = await (inOrder ? inTurn : fanOut)(
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
  const next = await nextOf(reconciler, reconcilers, key, acted, context);
  if (next.length === 0) return own;
  return fannedOut(own, await fanOut(reconcilers, next, { ...context, cause: { kind: "related", from: key } }));
}

/** What an object's reconcile leads to: the objects its result wakes, then its dependents. */
async function nextOf(
  reconciler: AnyReconciler,
  reconcilers: readonly AnyReconciler[],
  key: ObjectKey,
  acted: Acted | undefined,
  context: ReconcileContext,
): Promise<{ reconciler: AnyReconciler; key: Next }[]> {
  const woken = acted?.kind === "done" ? (acted.wake ?? []) : [];
  const dependents = reconciler.dependents ? await reconciler.dependents(key, context) : [];
  return [...woken, ...dependents].flatMap((k) => {
    const r = reconcilers.find((c) => c.kind.apiVersion === k.apiVersion && c.kind.kind === k.kind);
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
    try {
      acted = await reconcileObject(item.reconciler, item.key, here);
      outcomes.push(outcomeOf(acted));
    } catch (error) {
      outcomes.push(failed(item.key, error, context));
    }
    const cause: Cause = { kind: "related", from: item.key };
    const next = await nextOf(item.reconciler, reconcilers, item.key, acted, here);
    queue.push(...next.map((n) => ({ ...n, cause })));
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
  const carried: C[] = [];
  for (let pass = 1; ; pass++) {
    const gone = reconciler.schedulesOf?.(key) ?? [];
    const found = reconciler.load ? await reconciler.load(key, context) : await context.kube.get<T>(key);
    if (!found) return { kind: "skipped", reason: `${describeKey(key)} is gone`, schedules: gone };
    if (found.metadata.deletionTimestamp && !reconciler.reconcilesDeletion) {
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
    const observed = await reconciler.observe(object, context, carried);
    const decision = reconciler.decide(observed, context.now());
    const result = await reconciler.act(object, decision, context);
    if (result.kind === "look-again" && pass < (reconciler.passes ?? 1)) {
      carried.push(result.carry);
      continue;
    }
    const acted: Acted = result.kind === "look-again" ? { kind: "done" } : result;
    const schedules = [...(decision.schedules ?? []), ...(acted.schedules ?? [])];
    if (acted.kind === "done") return { ...acted, summary: acted.summary ?? decision.summary, schedules };
    return { ...acted, schedules };
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
  items: readonly { reconciler: AnyReconciler; key: ObjectKey }[],
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
