import type { Kube } from "./client.ts";
import type { KubeObject } from "./object.ts";

export type EventType = "Normal" | "Warning";

/** Records Kubernetes Events (events.k8s.io/v1) about the objects a function reconciles. */
export interface EventRecorder {
  record(regarding: KubeObject, type: EventType, reason: string, note: string, action?: string): Promise<void>;
}

/** Kubernetes caps an Event note at 1 kB. */
const maxNoteLength = 1024;

export function createEventRecorder(kube: Kube, controller: string, instance: string): EventRecorder {
  return {
    async record(regarding, type, reason, note, action = reason) {
      const namespace = regarding.metadata.namespace ?? "default";
      const now = new Date();
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
        note: note.length > maxNoteLength ? `${note.slice(0, maxNoteLength - 1)}…` : note,
        regarding: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          name: regarding.metadata.name,
          namespace,
          uid: regarding.metadata.uid,
          resourceVersion: regarding.metadata.resourceVersion,
        },
      } as KubeObject);
    },
  };
}
