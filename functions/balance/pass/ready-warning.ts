import { type Condition, type ConditionUpdate, findCondition } from "../../../shared/kube/index.ts";
import type { BalancerEvent } from "./types.ts";

/** A Warning when Ready turns False for a reason it did not show before: once, not every pass. */
export function readyWarning(previous: readonly Condition[] | undefined, update: ConditionUpdate): BalancerEvent[] {
  if (update.status !== "False") return [];
  const before = findCondition(previous, "Ready");
  if (before?.status === "False" && before.reason === update.reason) return [];
  return [{ type: "Warning", reason: update.reason, note: update.message }];
}
