// How often a balancer's pass comes: a balancer is periodic by nature, so its PingSource follows
// `interval` for as long as it exists (5 s while a move is pending), and goes with it.
import type { Poll } from "../../../shared/runtime/index.ts";

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
