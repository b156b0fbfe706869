// sign-account's reconciles over an in-memory API server: what a delivery does, object by object,
// with the Events it records kept for inspection.
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { reconcile } from "../../functions/sign-account/reconcile.ts";
import type { Subject } from "../../functions/sign-account/objects.ts";
import { memoryKube } from "./memory-kube.ts";

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
