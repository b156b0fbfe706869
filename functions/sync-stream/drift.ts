// The drift check: a PingSource per namespace holding JetStream objects
// ticks every resync period; each tick re-checks every object there, and
// the schedule is dropped once the namespace holds none.
import { dropSchedule, keepSchedule } from "../../shared/eventing/schedule.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import type { Logger } from "../../shared/telemetry/logger.ts";
import { resyncCron } from "./context.ts";
import { coreApiVersion } from "./kinds.ts";

export const scheduleName = "sync-stream-drift";
export const driftWork = (namespace: string) => ({ check: "drift", namespace });

/** The namespace a tick is for, or undefined when the tick is not a drift check. */
export function driftNamespace(work: Record<string, unknown>, pingSource: string | undefined): string | undefined {
  if (work.check !== "drift") return undefined;
  if (typeof work.namespace === "string" && work.namespace !== "") return work.namespace;
  return pingSource?.split("/")[0];
}

/** Ensures each namespace's schedule once per process; a failure is retried on the next object. */
export function scheduleKeeper(getKube: () => Promise<Kube>, log: Logger) {
  const kept = new Set<string>();
  return {
    async ensure(namespace: string): Promise<void> {
      if (kept.has(namespace)) return;
      try {
        await keepSchedule(await getKube(), { namespace, name: scheduleName, cron: resyncCron, target: "sync-stream", work: driftWork(namespace) });
        kept.add(namespace);
      } catch (error) {
        log.warn({ err: error, namespace }, "cannot keep the drift schedule");
      }
    },
    async drop(namespace: string): Promise<void> {
      kept.delete(namespace);
      try {
        await dropSchedule(await getKube(), namespace, scheduleName);
      } catch (error) {
        if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
      }
    },
    forget(namespace: string): void {
      kept.delete(namespace);
    },
  };
}

export type ScheduleKeeper = ReturnType<typeof scheduleKeeper>;

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
