// sign-account's reconciles over an in-memory API server: what a delivery does, object by object,
// with the Events it records kept for inspection; and each kind's steps on their own (observe,
// decide, dependents), as the runtime calls them.
import type { Kube } from "../../shared/kube/client.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { reconcileObject, type AnyReconciler, type ReconcileContext } from "../../shared/runtime/reconciler.ts";
import type { ScheduleDecision } from "../../shared/runtime/schedule.ts";
import { createLogger } from "../../shared/telemetry/logger.ts";
import { reconcilers } from "../../functions/sign-account/index.ts";
import type { Read } from "../../functions/sign-account/auth-reconciler.ts";
import type { Decision } from "../../functions/sign-account/decision.ts";
import { keyOfSubject, type Dependent, type Subject } from "../../functions/sign-account/objects.ts";
import type { AccountObserved } from "../../functions/sign-account/account/types.ts";
import type { OperatorObserved } from "../../functions/sign-account/operator/types.ts";
import type { SystemAccountObserved } from "../../functions/sign-account/system-account/types.ts";
import type { AccountTrustObserved, TrustObserved } from "../../functions/sign-account/trust/types.ts";
import type { UserObserved } from "../../functions/sign-account/user/types.ts";
import { memoryKube } from "./memory-kube.ts";

/** What any kind's observe reads. */
export type Observed =
  OperatorObserved | SystemAccountObserved | AccountObserved | UserObserved | TrustObserved | AccountTrustObserved;

/** What one object's reconcile came to, as a test reads it. */
export type Reconciled =
  | { kind: "done"; summary: string; schedules: ScheduleDecision[] }
  | { kind: "gone"; summary: string }
  | { kind: "conflict"; summary: string }
  | { kind: "again"; summary: string };

const silent = createLogger({ level: "silent" });

// Each kind's steps, called with what that kind's own steps produced.
const reconcilerOf = (kind: Subject["kind"]): AnyReconciler => {
  const found = reconcilers.find((r) => r.kind.kind === kind);
  if (!found) throw new Error(`sign-account has no reconciler of ${kind}`);
  return found;
};

/** A context of one delivery of its own: its readings are shared with nothing else. */
function contextOf(kube: Kube, recorder: EventRecorder, now: Date): ReconcileContext {
  const made = new Map<string, unknown>();
  return {
    log: silent,
    kube,
    recorder: async () => recorder,
    now: () => now,
    cause: { kind: "tick" },
    delivery: {
      once<T>(name: string, make: () => T): T {
        if (!made.has(name)) made.set(name, make());
        return made.get(name) as T;
      },
      visit: () => true,
    },
  };
}

const noEvents: EventRecorder = { record: async () => {} };

/** One object's reconcile, every pass of it, as the runtime runs it. */
export async function reconcile(kube: Kube, recorder: EventRecorder, subject: Subject, now: Date): Promise<Reconciled> {
  const acted = await reconcileObject(
    reconcilerOf(subject.kind),
    keyOfSubject(subject),
    contextOf(kube, recorder, now),
  );
  switch (acted.kind) {
    case "done":
      return { kind: "done", summary: acted.summary ?? "", schedules: [...(acted.schedules ?? [])] };
    case "skipped":
      return { kind: "gone", summary: acted.reason };
    case "conflict":
      return { kind: "conflict", summary: acted.message };
    case "again":
      return { kind: "again", summary: acted.message };
  }
}

/** What the subject's kind observes of it (no earlier pass); undefined when it is gone. */
export async function observe(kube: Kube, subject: Subject): Promise<Read<Observed> | undefined> {
  const object = await kube.get<KubeObject>(keyOfSubject(subject));
  if (!object) return undefined;
  const read: Read<Observed> = await reconcilerOf(subject.kind).observe(
    object,
    contextOf(kube, noEvents, new Date()),
    [],
  );
  return read;
}

/** The decision the observation's kind comes to (pure). */
export function decide(observed: Observed, now: Date): Decision {
  // Decide reads only the observation: the keyring goes by it to act untouched.
  const read: Read<Observed> & { pass: number } = { observed, keyring: undefined as never, pass: 0 };
  return (reconcilerOf(observed.kind).decide(read, now) as { decision: Decision }).decision;
}

/** The objects reconciled after the subject in the same delivery. */
export async function dependentsOf(kube: Kube, subject: Subject): Promise<Dependent[]> {
  const next =
    (await reconcilerOf(subject.kind).dependents?.(keyOfSubject(subject), contextOf(kube, noEvents, new Date()))) ?? [];
  return next.map((n) => ({
    kind: n.kind as Subject["kind"],
    namespace: n.namespace,
    name: n.name,
    ...(n.again ? { again: true } : {}),
  }));
}

/** One delivery of the subject: its reconcile, then its dependents as that delivery names them. */
export async function reconcileWithDependents(
  kube: Kube,
  subject: Subject,
  now: Date,
): Promise<{ reconciled: Reconciled; dependents: Dependent[] }> {
  const context = contextOf(kube, noEvents, now);
  const reconciler = reconcilerOf(subject.kind);
  const acted = await reconcileObject(reconciler, keyOfSubject(subject), context);
  const next = (await reconciler.dependents?.(keyOfSubject(subject), context)) ?? [];
  const reconciled: Reconciled =
    acted.kind === "done"
      ? { kind: "done", summary: acted.summary ?? "", schedules: [...(acted.schedules ?? [])] }
      : {
          kind: acted.kind === "skipped" ? "gone" : acted.kind,
          summary: "reason" in acted ? acted.reason : acted.message,
        };
  return {
    reconciled,
    dependents: next.map((n) => ({ kind: n.kind as Subject["kind"], namespace: n.namespace, name: n.name })),
  };
}

export function authWorld(objects: KubeObject[]) {
  const kube = memoryKube(objects);
  const events: string[] = [];
  const recorder = {
    record: async (regarding: KubeObject, type: string, reason: string, note: string) =>
      void events.push(`${regarding.kind} ${regarding.metadata.name} ${type} ${reason}: ${note}`),
  };
  const run = (kind: Subject["kind"], name: string, now = new Date()) =>
    reconcile(kube as Kube, recorder, { kind, namespace: "auth", name }, now);
  const get = <T extends KubeObject>(apiVersion: string, kind: string, name: string) =>
    kube.get<T>({ apiVersion, kind, namespace: "auth", name });
  return { kube, events, run, get };
}
