// The settle check: while an object's Raft group has no leader or a member behind, or a
// connection waits for its servers (connect-wait.ts), a PingSource in its namespace ticks every
// 15 s and re-reads them; the schedule is dropped once none is left. Drift is checked on the cluster-wide resync tick instead
// (`checksDrift`), so a namespace at rest holds no schedule of sync-stream's.
import { keepPolling, type ScheduleDecision, stopPolling } from "../../shared/runtime/index.ts";
import { settleCron } from "./context.ts";

export const settleSchedule = { name: "sync-stream-settle", cron: settleCron } as const;

/** The namespace a settle tick is for, or undefined when the tick is not one. */
export function settleTickOf(work: Record<string, unknown>, pingSource: string | undefined): string | undefined {
  if (work.check !== "settle") return undefined;
  const namespace =
    typeof work.namespace === "string" && work.namespace !== "" ? work.namespace : pingSource?.split("/")[0];
  return namespace || undefined;
}

/** A namespace's settle check ticking: its PingSource is shared by every object there, and owned by none. */
export function keepSettleCheck(namespace: string): ScheduleDecision {
  return keepPolling(
    {
      namespace,
      name: settleSchedule.name,
      target: "sync-stream",
      work: { check: "settle", namespace },
      scope: { kind: "namespace" },
    },
    { cron: settleSchedule.cron },
  );
}

/** A namespace's settle check ended: only a check that saw the whole namespace says so. */
export function stopSettleCheck(namespace: string): ScheduleDecision {
  return stopPolling({ namespace, name: settleSchedule.name });
}
