// The drift check: a PingSource per namespace holding JetStream objects
// ticks every resync period; each tick re-checks every object there, and
// the schedule is dropped once the namespace holds none. Reconciles declare
// these schedules in their outcome; the runtime keeps or drops them.
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { keepPolling, type ScheduleDecision, stopPolling } from "../../shared/runtime/schedule.ts";
import { resyncCron, settleCron } from "./context.ts";
import { coreApiVersion } from "./kinds.ts";

export type Check = "drift" | "settle";

/**
 * Two schedules per namespace: `drift` every resync period while the
 * namespace holds JetStream objects, and `settle` every 15 s while one of
 * them has a Raft group without a leader or with a member behind.
 */
export const schedules: Record<Check, { name: string; cron: string }> = {
  drift: { name: "sync-stream-drift", cron: resyncCron },
  settle: { name: "sync-stream-settle", cron: settleCron },
};
export const scheduleName = schedules.drift.name;
export const workOf = (check: Check, namespace: string) => ({ check, namespace });

/** What a tick asks for, or undefined when it is not one of ours. */
export function tickOf(
  work: Record<string, unknown>,
  pingSource: string | undefined,
): { check: Check; namespace: string } | undefined {
  if (work.check !== "drift" && work.check !== "settle") return undefined;
  const namespace =
    typeof work.namespace === "string" && work.namespace !== "" ? work.namespace : pingSource?.split("/")[0];
  return namespace ? { check: work.check, namespace } : undefined;
}

/** A namespace's check ticking: its PingSource is shared by every object there, and owned by none. */
export function keepCheck(namespace: string, check: Check): ScheduleDecision {
  return keepPolling(
    {
      namespace,
      name: schedules[check].name,
      target: "sync-stream",
      work: workOf(check, namespace),
      scope: { kind: "namespace" },
    },
    { cron: schedules[check].cron },
  );
}

/** A namespace's check ended: only a check that saw the whole namespace says so. */
export function stopCheck(namespace: string, check: Check): ScheduleDecision {
  return stopPolling({ namespace, name: schedules[check].name });
}

export async function connectionsInNamespace(kube: Kube, namespace: string): Promise<KubeObject[]> {
  return kube.list<KubeObject>({ apiVersion: coreApiVersion, kind: "NatsConnection", namespace });
}

/** Runs `work` over items with at most `limit` at a time. */
export async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
