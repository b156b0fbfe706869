// The drift check: a PingSource per namespace holding JetStream objects
// ticks every resync period; each tick re-checks every object there, and
// the schedule is dropped once the namespace holds none.
import { dropSchedule, keepSchedule } from "../../shared/eventing/schedule.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import type { Logger } from "../../shared/telemetry/logger.ts";
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

/** Ensures each namespace's schedule once per process; a failure is retried on the next object. */
export function scheduleKeeper(getKube: () => Promise<Kube>, log: Logger) {
  // One write per namespace, schedule and process, shared by concurrent reconciles.
  const kept = new Map<string, Promise<void>>();
  return {
    ensure(namespace: string, check: Check): Promise<void> {
      const id = `${check}/${namespace}`;
      let pending = kept.get(id);
      if (!pending) {
        const { name, cron } = schedules[check];
        pending = (async () => {
          await keepSchedule(await getKube(), {
            namespace,
            name,
            cron,
            target: "sync-stream",
            work: workOf(check, namespace),
          });
        })().catch((error: unknown) => {
          kept.delete(id);
          log.warn({ err: error, namespace, check }, "cannot keep the schedule");
        });
        kept.set(id, pending);
      }
      return pending;
    },
    async drop(namespace: string, check: Check): Promise<void> {
      kept.delete(`${check}/${namespace}`);
      try {
        await dropSchedule(await getKube(), namespace, schedules[check].name);
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
