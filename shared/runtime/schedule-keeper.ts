// Makes the PingSources match what an outcome's schedules ask for. Functions never write
// PingSources themselves: a forgotten drop on one path would leave a namespace paying for ticks.
import { dropSchedule, keepSchedule, pingSourceFor, pingSourceType, type PingSourceObject } from "./schedule-source.ts";
import type { Kube } from "../kube/client.ts";
import { jsonEqual } from "../kube/equal.ts";
import type { Logger } from "../telemetry/logger.ts";
import { cronOf, type ScheduleDecision } from "./schedule.ts";

export interface ScheduleKeeper {
  /**
   * Keeps every schedule that polls and drops every one that does not. Throws when a PingSource
   * of one object cannot be written (the event is retried, and asks again); a namespace-wide one
   * that cannot be applied is logged and left to the next object that asks.
   */
  settle(decisions: readonly ScheduleDecision[]): Promise<void>;
}

export function createScheduleKeeper(kube: () => Promise<Kube>, log: Logger): ScheduleKeeper {
  // Namespace-wide schedules this process applied, by PingSource, with the spec applied: one apply
  // per namespace and process, shared by the reconciles that ask at the same time.
  const appliedOnce = new Map<string, { spec: string; done: Promise<void> }>();

  const settleOne = async (decision: ScheduleDecision): Promise<void> => {
    const id = `${decision.schedule.namespace}/${decision.schedule.name}`;
    if (decision.poll === false) {
      appliedOnce.delete(id);
      // 404 is fine: most decisions that say "no poll" find none.
      if (await dropSchedule(await kube(), decision.schedule)) log.debug({ pingSource: id }, "schedule dropped");
      return;
    }
    const desired = pingSourceFor(decision.schedule, cronOf(decision.poll));
    if (decision.schedule.scope.kind === "namespace") {
      const spec = JSON.stringify(desired.spec);
      const known = appliedOnce.get(id);
      if (known?.spec === spec) return known.done;
      const done = (async () => keepSchedule(await kube(), desired))().catch((error: unknown) => {
        appliedOnce.delete(id);
        log.warn({ err: error, pingSource: id }, "cannot keep the schedule");
      });
      appliedOnce.set(id, { spec, done });
      return done;
    }
    // A read first: a decision that changes nothing writes nothing (most keeps repeat the last one).
    const client = await kube();
    const existing = await client.get<PingSourceObject>({ ...pingSourceType, ...decision.schedule });
    if (existing && holds(existing, desired)) return;
    await keepSchedule(client, desired);
    log.debug({ pingSource: id, schedule: desired.spec.schedule }, "schedule kept");
  };

  return {
    async settle(decisions) {
      // Each names a different PingSource (merged by name), so order does not matter.
      await Promise.all(decisions.map(settleOne));
    },
  };
}

/** Whether the PingSource already says what `desired` says (fields others add are not ours to judge). */
function holds(existing: PingSourceObject, desired: PingSourceObject): boolean {
  const spec = new Map(Object.entries(existing.spec ?? {}));
  const labels = existing.metadata.labels ?? {};
  const owners = existing.metadata.ownerReferences ?? [];
  return (
    Object.entries(desired.spec).every(([field, value]) => jsonEqual(spec.get(field), value)) &&
    Object.entries(desired.metadata.labels ?? {}).every(([label, value]) => labels[label] === value) &&
    (desired.metadata.ownerReferences ?? []).every((want) =>
      owners.some((have) => have.uid === want.uid && have.controller === true),
    )
  );
}
