// The reconciler of one JetStream kind (NatsStream, NatsConsumer, NatsKeyValue, NatsObjectStore);
// the four are built here alike. A new object is taken up from its event's payload
// (first-sight.ts); one Terminal at this generation, or checked moments ago, is left alone before
// anything is read; a missing finalizer is added first. Then observe → decide → act, with one
// status write per pass.
import { KINDS } from "../../../shared/api/index.ts";
import { addFinalizer, hasFinalizer } from "../../../shared/kube/index.ts";
import type { Reconciler, Related } from "../../../shared/runtime/index.ts";
import { finalizer } from "../context.ts";
import type { ConnectJetStream, JetStreamServer } from "../jetstream/server.ts";
import type { ObjectKind } from "../targets/kinds.ts";
import type { JetStreamObject } from "../types.ts";
import { actOn } from "./act.ts";
import { decide, heldBack, triggerOf } from "./decide.ts";
import { finalizeObject } from "./finalize.ts";
import { isFirstSight, isOwnFinalizerWrite, payloadOf, takeUpFirstSight } from "./first-sight.ts";
import { observeObject } from "./observe.ts";
import type { Decision, Observed } from "./types.ts";

export interface ObjectReconcilerOptions {
  /** How JetStream is reached through a NatsConnection (the pool in production, a fake in tests). */
  readonly connect: ConnectJetStream;
  /** Mappings that lead to objects of every JetStream kind: declared on one of the four only. */
  readonly related?: readonly Related[];
}

export function objectReconciler(
  kind: ObjectKind,
  options: ObjectReconcilerOptions,
): Reconciler<JetStreamObject, Observed, Decision> {
  const { connect } = options;
  // The payload that is this pod's own finalizer write coming back: answered without a read.
  const echoes = new WeakSet<JetStreamObject>();
  // The JetStream side observe reached, for act in the same pass (the runtime hands both the same object).
  const reached = new WeakMap<JetStreamObject, JetStreamServer>();
  return {
    kind: KINDS[kind],
    ...(options.related ? { related: options.related } : {}),

    async load(key, context) {
      const { cause, kube } = context;
      const payload = cause.kind === "event" ? payloadOf(cause.event, cause.data) : undefined;
      if (payload && (await isOwnFinalizerWrite(payload))) {
        echoes.add(payload);
        return payload;
      }
      return (
        (isFirstSight(payload) ? await takeUpFirstSight(kube, payload) : undefined) ??
        (await kube.get<JetStreamObject>(key))
      );
    },

    finalize: (object, context) => finalizeObject(object, context, connect),

    async prepare(object, context) {
      if (echoes.has(object))
        return {
          kind: "skipped",
          reason: "the echo of this pod's own finalizer write, reconciled by the delivery that made it",
        };
      const trigger = triggerOf(context.cause);
      const held = heldBack(object, trigger, context.now());
      if (held) return { kind: "skipped", reason: held };
      if (hasFinalizer(object, finalizer)) return { kind: "ready", object };
      // The finalizer write is itself an update event; that event does the work,
      // so one delivery chain (and one backoff) runs per change, not two.
      const added = await addFinalizer(context.kube, object, finalizer);
      if (trigger === "event") return { kind: "done", summary: "finalizer added; the update it makes carries on" };
      return { kind: "ready", object: added };
    },

    async observe(object, context) {
      const { observed, server } = await observeObject(object, context.kube, connect);
      if (server) reached.set(object, server);
      return observed;
    },

    decide,

    act: (object, decision, context) => actOn(object, decision, context, reached.get(object)),
  };
}
