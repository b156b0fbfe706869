// The reconciler every auth kind shares: its own observe and decide, one act (decision.ts is the
// same shape for every kind), and the passes of one reconcile: after seeds are generated the
// object is observed again, so a new object is keyed and signed in one delivery; after a push, a
// delete request or a kick, so the decision after it sees which servers now hold the JWT (and
// records an acknowledged push's time), releases a finalizer a delete every server took, or lets
// go of a user none of whose connections is left. Then the objects that read it (its dependents).
import { KINDS } from "../../shared/api/index.ts";
import type { EventRecorder, Kube, KubeObject, ObjectKey } from "../../shared/kube/index.ts";
import type { ReconcileContext, Reconciler, Related } from "../../shared/runtime/index.ts";
import { act, type PassResult } from "./act.ts";
import type { Decision } from "./decision.ts";
import type { Keyring } from "./keys/keyring.ts";
import { keyOfSubject, type Dependent, type Subject, type SubjectKind } from "./objects.ts";
import { newRosterPolls, type RosterPolls, type SystemLink } from "./servers/system-connection.ts";
import type { PushOutcome } from "./servers/types.ts";
import type { KickOutcome } from "./user/types.ts";

/** Generating takes one pass, signing and pushing the next, confirming the push a third: and a spare. */
const PASSES = 4;

/**
 * What act did that the next pass looks at; `raced`: a later pass's status write lost to another
 * delivery, so the next pass decides again from what that one wrote (what this one did is still
 * carried, and recorded then).
 */
export type Carry = Exclude<PassResult, { kind: "done" } | { kind: "conflict" }> | { kind: "raced" };

/** The latest push, delete request and kick of this reconcile's earlier passes, as observe hears of them. */
export interface LastActs {
  push?: PushOutcome;
  delete?: PushOutcome;
  kick?: KickOutcome;
}

export function lastActs(carried: readonly Carry[]): LastActs {
  const last: LastActs = {};
  for (const c of carried) {
    if (c.kind === "pushed") last.push = c.outcome;
    if (c.kind === "deleted") last.delete = c.outcome;
    if (c.kind === "kicked") last.kick = c.outcome;
  }
  return last;
}

/** What a kind's observe gets. `rosters`: the STATSZ polls of this delivery, shared by its objects and never beyond. */
export interface ObserveContext {
  readonly kube: Kube;
  readonly last: LastActs;
  readonly rosters: RosterPolls;
}

/** What observe hands on: the plain observation, and beside it the seeds act signs with and the connection it pushes on. */
export interface Read<O> {
  observed: O;
  keyring: Keyring;
  system?: SystemLink;
}

/**
 * The decision, with what act needs beside it (the decision itself stays plain data). Its
 * schedules go with a done act only, not with the decision: one that lost its claim was made on
 * what the winning delivery has since changed, and its polls must not undo the winner's.
 */
export interface ToAct<D extends Decision> {
  readonly summary: string;
  readonly decision: D;
  readonly keyring: Keyring;
  readonly system?: SystemLink;
  /** Which pass this is (0 the first): after the last, what act did is left to the decision's polls. */
  readonly pass: number;
}

/** One auth kind: what it reads and decides, and which objects read it. */
export interface AuthKind<T, O, D extends Decision> {
  readonly kind: SubjectKind;
  /** False for the trusts, whose status render-cluster's resync looks after. */
  readonly ownsStatus?: boolean;
  readonly related?: readonly Related[];
  observe(object: T, context: ObserveContext): Promise<Read<O>>;
  decide(observed: O, now: Date): D;
  /**
   * What of the object those of its dependents read that only some changes concern (a user reads
   * of its account: account/user-view.ts), as text; undefined when it cannot tell.
   */
  viewOf?(object: T): string | undefined;
  /** The same for the accounts importing from it (wiring/importers.ts): what their imports read of it. */
  importerViewOf?(object: T): string | undefined;
  /**
   * The objects that read this one, reconciled after it in the same delivery (it may be gone).
   * `changed`: whether its `viewOf` and `importerViewOf` changed since its reconcile began (true
   * when the kind has none, or when it cannot be told: the object gone or being deleted, a signing
   * key retiring). `current`: the object as stored now, when it was read for that comparison.
   */
  dependents(kube: Kube, subject: Subject, changed: ViewChanges, current?: T): Promise<Dependent[]>;
}

/** Which of an object's views its dependents read changed in its reconcile. */
export interface ViewChanges {
  readonly users: boolean;
  readonly importers: boolean;
}

/** An object's views as its reconcile found them. */
interface Views {
  users: string | undefined;
  importers: string | undefined;
}

/** An object as its reconcile's last act left it, by object, for the delivery's dependents. */
const leftOf = (context: Pick<ReconcileContext, "delivery">): Map<string, KubeObject> =>
  context.delivery.once("sign-account left", () => new Map<string, KubeObject>());

/** An object's views as its reconcile found them, by object, for the delivery's dependents. */
const viewsOf = (context: Pick<ReconcileContext, "delivery">): Map<string, Views> =>
  context.delivery.once("sign-account views", () => new Map<string, Views>());

const idOf = (kind: string, namespace: string | undefined, name: string) => `${kind} ${namespace ?? ""}/${name}`;

/** The delivery's STATSZ polls: one roster read shared by every object of one delivery, never across. */
export const rostersOf = (context: Pick<ReconcileContext, "delivery">): RosterPolls =>
  context.delivery.once("sign-account rosters", newRosterPolls);

/** The recorder is made on the first Event only: most deliveries record none. */
const recorderOf = (context: ReconcileContext): EventRecorder => ({
  record: async (...args) => (await context.recorder()).record(...args),
});

export function authReconciler<T extends Decision["object"], O, D extends Decision>(
  spec: AuthKind<T, O, D>,
): Reconciler<T, Read<O> & { pass: number }, ToAct<D>, Carry> {
  const { apiVersion } = KINDS[spec.kind];
  const hasViews = spec.viewOf !== undefined || spec.importerViewOf !== undefined;
  /**
   * Whether the object's views as stored now differ from the views its reconcile found (as its
   * last act left it, or read again: act signs into status what the decision only asks for), each
   * true when either cannot be told; and the object as stored now, when known.
   */
  const viewChanges = async (
    key: ObjectKey,
    context: ReconcileContext,
  ): Promise<{ changed: ViewChanges; current?: T }> => {
    const id = idOf(spec.kind, key.namespace, key.name);
    const views = viewsOf(context);
    const before = views.get(id);
    views.delete(id);
    const left = leftOf(context).get(id) as T | undefined;
    leftOf(context).delete(id);
    const all = { users: true, importers: true };
    if (!hasViews || before === undefined) return { changed: all, ...(left ? { current: left } : {}) };
    const now = left ?? (await context.kube.get<T>(key));
    const differs = (view: ((object: T) => string | undefined) | undefined, was: string | undefined) =>
      view === undefined || was === undefined || now === undefined || view(now) !== was;
    return {
      changed: { users: differs(spec.viewOf, before.users), importers: differs(spec.importerViewOf, before.importers) },
      ...(now ? { current: now } : {}),
    };
  };
  return {
    kind: { apiVersion, kind: spec.kind },
    ...(spec.ownsStatus === false ? { ownsStatus: false } : {}),
    ...(spec.related ? { related: spec.related } : {}),
    passes: PASSES,
    // An object being deleted is decided like any other: its decision holds or removes its finalizer.
    reconcilesWhileDeleting: () => true,
    observe: async (object, context, carried) => {
      // The views as this reconcile found them: its first pass reads the object before anything is written.
      if (hasViews && carried.length === 0)
        viewsOf(context).set(idOf(spec.kind, object.metadata.namespace, object.metadata.name), {
          users: spec.viewOf?.(object),
          importers: spec.importerViewOf?.(object),
        });
      return {
        ...(await spec.observe(object, { kube: context.kube, last: lastActs(carried), rosters: rostersOf(context) })),
        pass: carried.length,
      };
    },
    decide(read, now) {
      const decision = spec.decide(read.observed, now);
      return {
        summary: decision.summary,
        decision,
        keyring: read.keyring,
        ...(read.system ? { system: read.system } : {}),
        pass: read.pass,
      };
    },
    async act(_object, { decision, keyring, system, pass }, context) {
      const acted = await act(
        context.kube,
        recorderOf(context),
        keyring,
        decision,
        system,
        context.now(),
        context.record,
      );
      const id = idOf(spec.kind, decision.object.metadata.namespace, decision.object.metadata.name);
      // What its dependents read of it is what this act left, when it is done: no read again.
      if (acted.kind === "done" && acted.left) leftOf(context).set(id, acted.left as T);
      else leftOf(context).delete(id);
      const last = pass === PASSES - 1;
      // A first pass that loses its claim leaves the decision to the delivery that won it. A later
      // one already acted (pushed, asked for a delete, kicked): what it did is recorded on what the
      // other delivery wrote, or a push acknowledged here would never show in lastPushTime.
      if (acted.kind === "conflict" && pass > 0 && !last) return { kind: "look-again", carry: { kind: "raced" } };
      if (acted.kind === "conflict")
        return { kind: "conflict", message: `${decision.summary} (lost to another write)` };
      // After the last pass's push the poll (kept by this decision) confirms it.
      if (acted.kind === "done")
        return {
          kind: "done",
          summary: decision.summary,
          schedules: decision.schedules,
          recorded: acted.recorded === true,
        };
      if (acted.kind !== "generated" && last)
        return { kind: "done", summary: decision.summary, schedules: decision.schedules };
      if (!last) return { kind: "look-again", carry: acted };
      const { kind, metadata } = decision.object;
      return {
        kind: "conflict",
        message: `${kind} ${metadata.namespace}/${metadata.name}: seeds still missing after generating them`,
      };
    },
    async dependents(key, context) {
      const subject: Subject = { kind: spec.kind, namespace: key.namespace, name: key.name };
      const { changed, current } = await viewChanges(key, context);
      return (await spec.dependents(context.kube, subject, changed, current)).map((d) => ({
        ...keyOfSubject(d),
        ...(d.again ? { again: true } : {}),
      }));
    },
  };
}
