// What Progressing says beyond what the rollout planner knows. The planner is told a refused
// trust only as a wait (no step is taken), and a render failure only as `ReconcileFailed`;
// here both are said with their own reasons.
import type { ConditionUpdate } from "../../shared/kube/conditions.ts";
import { GENERIC_FAILURE_REASON, renderFailureReason } from "../cluster/index.ts";
import { RENDER_FAILURE_ANNOTATION } from "../../shared/api/constants/annotations.ts";

/** Why the cluster is held at its last render (a refused trust), as step-rollout read it. */
export interface Hold {
  reason: string;
  message: string;
}

/**
 * The conditions with Progressing refined: a hold reads `Progressing=False` with its reason;
 * otherwise a render failure reads with the reason render-cluster recorded beside it.
 */
export function refineProgressing(
  conditions: readonly ConditionUpdate[],
  hold: Hold | undefined,
  annotations: Record<string, string> | undefined,
): ConditionUpdate[] {
  return conditions.map((condition) => {
    if (condition.type !== "Progressing") return condition;
    if (hold) return { ...condition, status: "False", reason: hold.reason, message: hold.message };
    const recorded = annotations?.[RENDER_FAILURE_ANNOTATION];
    const reason = renderFailureReason(annotations);
    if (
      condition.reason === GENERIC_FAILURE_REASON &&
      recorded !== undefined &&
      condition.message === recorded &&
      reason !== GENERIC_FAILURE_REASON
    ) {
      return { ...condition, reason };
    }
    return condition;
  });
}
