import { redactCredentials } from "../telemetry/redact.ts";
import type { Kube } from "./client.ts";
import type { KubeObject } from "./object.ts";

export type EventType = "Normal" | "Warning";

/** Records Kubernetes Events (events.k8s.io/v1) about the objects a function reconciles; URL credentials in a note are redacted. */
export interface EventRecorder {
  record(regarding: KubeObject, type: EventType, reason: string, note: string, action?: string): Promise<void>;
}

/** Kubernetes caps an Event note at 1 kB. */
const maxNoteLength = 1024;

/**
 * Event writes in flight per API client; more wait their turn. A burst of reconciles (500 new
 * streams) would otherwise send its Events all at once, and they would compete at the API server
 * with the writes that matter more: status, and whatever else the cluster is doing (client-go's
 * recorder sends them one at a time, in the background). `record` still resolves only once its
 * Event is written, so a function that answers its event has recorded what it said it would.
 */
const eventWritesInFlight = 4;
const turns = new WeakMap<Kube, <T>(work: () => Promise<T>) => Promise<T>>();

export function createEventRecorder(kube: Kube, controller: string, instance: string): EventRecorder {
  let inTurn = turns.get(kube);
  if (!inTurn) turns.set(kube, (inTurn = limited(eventWritesInFlight)));
  const take = inTurn;
  return {
    async record(regarding, type, reason, note, action = reason) {
      const namespace = regarding.metadata.namespace ?? "default";
      await take(() => write(regarding, namespace, type, reason, note, action));
    },
  };

  async function write(
    regarding: KubeObject,
    namespace: string,
    type: EventType,
    reason: string,
    note: string,
    action: string,
  ): Promise<void> {
    const now = new Date();
    const text = redactCredentials(note);
    await kube.create({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: {
        name: `${regarding.metadata.name}.${now.getTime().toString(16)}${Math.random().toString(16).slice(2, 6)}`,
        namespace,
      },
      eventTime: now.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z"),
      reportingController: controller,
      reportingInstance: instance,
      action,
      reason,
      type,
      note: text.length > maxNoteLength ? `${text.slice(0, maxNoteLength - 1)}…` : text,
      regarding: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: regarding.metadata.name,
        namespace,
        uid: regarding.metadata.uid,
        resourceVersion: regarding.metadata.resourceVersion,
      },
    } as KubeObject);
  }
}

/** Runs at most `slots` pieces of work at once, the others in the order they came. */
export function limited(slots: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (active < slots) active++;
    // The slot is handed over by the one that frees it (see below), so none is taken twice.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
