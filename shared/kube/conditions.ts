import type { Reason } from "../api/constants/reasons.ts";

/** A status condition as metav1.Condition defines it. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/**
 * A condition as a planner states it; the time is filled in by `setCondition`. Its reason is one
 * of the vocabulary's (shared/api/constants/reasons.ts), so a reason the API does not declare fails
 * type-check; a condition read back from the cluster keeps a plain string.
 */
export type ConditionUpdate = Omit<Condition, "lastTransitionTime" | "reason"> & { reason: Reason };

/**
 * Returns the conditions with `update` merged in. `lastTransitionTime` moves
 * only when the condition's status changes, so a reconcile that finds the
 * world unchanged writes an identical list (and therefore nothing at all).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  now: Date,
): Condition[] {
  const list = conditions ?? [];
  const previous = list.find((c) => c.type === update.type);
  const lastTransitionTime =
    previous && previous.status === update.status ? previous.lastTransitionTime : now.toISOString();
  const next: Condition = { ...update, lastTransitionTime };
  if (!previous) return [...list, next];
  return list.map((c) => (c.type === update.type ? next : c));
}

export function setConditions(
  conditions: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  now: Date,
): Condition[] {
  return updates.reduce<Condition[]>((list, update) => setCondition(list, update, now), [...(conditions ?? [])]);
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === "True";
}
