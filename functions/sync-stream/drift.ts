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
  // One write per namespace and process, shared by concurrent reconciles.
  const kept = new Map<string, Promise<void>>();
  return {
    ensure(namespace: string): Promise<void> {
      let pending = kept.get(namespace);
      if (!pending) {
        pending = (async () => {
          await keepSchedule(await getKube(), { namespace, name: scheduleName, cron: resyncCron, target: "sync-stream", work: driftWork(namespace) });
        })().catch((error: unknown) => {
          kept.delete(namespace);
          log.warn({ err: error, namespace }, "cannot keep the drift schedule");
        });
        kept.set(namespace, pending);
      }
      return pending;
    },
    async drop(namespace: string): Promise<void> {
      kept.delete(namespace);
      try {
        await dropSchedule(await getKube(), namespace, scheduleName);
      } catch (error) {
        if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
      }
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
