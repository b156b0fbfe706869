// The schedules a decision asks for, as data: a function says which PingSources should poll and
// which should not, and the runtime (schedule-keeper.ts) makes it so after `handle` returns.
import type { KubeObject } from "../kube/object.ts";

/** Periods that divide a minute or an hour evenly, so `*\/n` ticks at an even pace. */
type EvenDivisor = 1 | 2 | 3 | 4 | 5 | 6 | 10 | 12 | 15 | 20 | 30;

/**
 * How often a schedule ticks: a fixed period (`{ every: "10s" }`), or a cron (five fields, or six
 * with a leading seconds field) for what a period cannot say (the minute a certificate falls due).
 * Crons are evaluated in UTC: every PingSource carries `timezone: UTC`.
 */
export type Poll = { readonly every: `${EvenDivisor}s` | `${EvenDivisor}m` } | { readonly cron: string };

/** Which PingSource: deterministic from function and object, so concurrent deliveries converge on one. */
export interface ScheduleId {
  readonly namespace: string;
  readonly name: string;
}

/** Everything a PingSource that polls needs besides its cron. */
export interface PingSchedule extends ScheduleId {
  /** The function the ticks are for; Triggers route on this `target` extension. */
  readonly target: string;
  /** JSON the tick carries, naming the work. */
  readonly work: Readonly<Record<string, unknown>>;
  /**
   * `object`: the schedule of one object, owned by it (so it goes with it), applied on every
   * decision that keeps it, so that one another pod dropped comes back at once.
   * `namespace`: one schedule shared by the objects of a namespace, owned by none: applied once per
   * process (a burst of 500 objects makes one apply, not 500), and a failed apply is only logged,
   * since the next object's decision asks for it again.
   */
  readonly scope: { readonly kind: "object"; readonly owner: KubeObject } | { readonly kind: "namespace" };
}

/**
 * One schedule as a decision wants it: polling (with everything the PingSource needs), or not
 * (only its name is needed, so an object already gone can still say it). A schedule a decision does
 * not name is left as it is: a namespace-wide schedule is ended only by the check that sees the
 * whole namespace, never by one object's reconcile.
 */
export type ScheduleDecision =
  { readonly schedule: PingSchedule; readonly poll: Poll } | { readonly schedule: ScheduleId; readonly poll: false };

/** A schedule that should tick. */
export const keepPolling = (schedule: PingSchedule, poll: Poll): ScheduleDecision => ({ schedule, poll });

/** A schedule that should not exist (a no-op when it does not). */
export const stopPolling = (schedule: ScheduleId): ScheduleDecision => ({
  schedule: { namespace: schedule.namespace, name: schedule.name },
  poll: false,
});

/** The PingSource cron of a poll. */
export function cronOf(poll: Poll): string {
  if ("cron" in poll) return poll.cron;
  const n = Number(poll.every.slice(0, -1));
  const step = n === 1 ? "*" : `*/${n}`;
  return poll.every.endsWith("s") ? `${step} * * * * *` : `${step} * * * *`;
}

/**
 * The decisions of several reconciles in one answer, one per PingSource. Later ones win, as the
 * keep and drop calls they replace did when made one after the other.
 */
export function mergeSchedules(...lists: readonly (readonly ScheduleDecision[] | undefined)[]): ScheduleDecision[] {
  const byName = new Map<string, ScheduleDecision>();
  for (const decision of lists.flatMap((list) => list ?? [])) {
    const id = `${decision.schedule.namespace}/${decision.schedule.name}`;
    byName.delete(id); // keeps the order of the last word on each
    byName.set(id, decision);
  }
  return [...byName.values()];
}
