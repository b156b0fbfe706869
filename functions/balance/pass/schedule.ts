// The balancer's own tick: a balancer is periodic by nature, so its PingSource follows `interval`
// for as long as it exists (5 s while a move is pending), and goes with it. An evacuation polls
// only while it has something to watch (moves in flight or waiting, owners to move pinned streams).
import { keepPolling, type Poll, type ScheduleDecision, stopPolling } from "../../../shared/runtime/schedule.ts";
import type { NatsBalancer } from "../account/resource.ts";
import type { NatsSystemBalancer } from "../system/resource.ts";
import type { NatsClusterEvacuation } from "../evacuation/resource.ts";

/** How often a pass looks while a requested move is not yet seen complete. */
export const PENDING_POLL: Poll = { every: "5s" };

const divisors = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30] as const;

/**
 * The even tick closest to `interval` without exceeding it: passes come at least as often as moves
 * may, and `decide` paces the moves themselves by `lastMove.time`.
 */
export function pollFor(intervalMs: number): Poll {
  const seconds = Math.max(1, Math.floor(intervalMs / 1000));
  if (seconds < 60) return { every: `${divisors.filter((d) => d <= seconds).at(-1) ?? 1}s` };
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return { every: `${divisors.filter((d) => d <= minutes).at(-1) ?? 1}m` };
  return { cron: "0 * * * *" };
}

export const scheduleId = (namespace: string, name: string) => ({ namespace, name: `${name}-system-balance` });

/** The balancer's PingSource, owned by it, ticking at `poll`. */
export function balancerPoll(balancer: NatsSystemBalancer, poll: Poll): ScheduleDecision {
  const namespace = balancer.metadata.namespace ?? "";
  return keepPolling(
    {
      ...scheduleId(namespace, balancer.metadata.name),
      target: "balance",
      work: { kind: "NatsSystemBalancer", namespace, name: balancer.metadata.name },
      scope: { kind: "object", owner: balancer },
    },
    poll,
  );
}

/** No PingSource for a balancer that is gone. */
export const noPoll = (namespace: string, name: string): ScheduleDecision => stopPolling(scheduleId(namespace, name));

export const accountScheduleId = (namespace: string, name: string) => ({ namespace, name: `${name}-balance` });

/** The account balancer's PingSource, owned by it, ticking at `poll`. */
export function accountBalancerPoll(balancer: NatsBalancer, poll: Poll): ScheduleDecision {
  const { namespace, name } = balancer.metadata;
  return keepPolling(
    {
      ...accountScheduleId(namespace, name),
      target: "balance",
      work: { kind: "NatsBalancer", namespace, name },
      scope: { kind: "object", owner: balancer },
    },
    poll,
  );
}

/** No PingSource for an account balancer that is gone. */
export const noAccountPoll = (namespace: string, name: string): ScheduleDecision =>
  stopPolling(accountScheduleId(namespace, name));

export const evacuationScheduleId = (namespace: string, name: string) => ({ namespace, name: `${name}-evacuation` });

/** The evacuation's PingSource, owned by it, while it has moves to watch; none otherwise. */
export function evacuationPoll(evacuation: NatsClusterEvacuation, poll: Poll | false): ScheduleDecision {
  const { namespace, name } = evacuation.metadata;
  if (poll === false) return stopPolling(evacuationScheduleId(namespace, name));
  return keepPolling(
    {
      ...evacuationScheduleId(namespace, name),
      target: "balance",
      work: { kind: "NatsClusterEvacuation", namespace, name },
      scope: { kind: "object", owner: evacuation },
    },
    poll,
  );
}

export const noEvacuationPoll = (namespace: string, name: string): ScheduleDecision =>
  stopPolling(evacuationScheduleId(namespace, name));
