// NatsConnection: Ready when its servers can be reached with its credentials. Pure.
import { findCondition, setConditions } from "../../../shared/kube/index.ts";
import { waitsForServers } from "../connect-wait.ts";
import { keepSettleCheck } from "../settle.ts";
import type { Decision, Observed } from "./types.ts";

export function decide(observed: Observed, now: Date): Decision {
  const { reach, generation } = observed;
  const wasReady = findCondition(observed.conditions, "Ready")?.status === "True";
  const condition = {
    type: "Ready",
    status: reach.ok ? ("True" as const) : ("False" as const),
    reason: reach.reason,
    message: reach.message,
  };
  const conditions = setConditions(
    observed.conditions,
    [{ ...condition, ...(generation === undefined ? {} : { observedGeneration: generation }) }],
    now,
  );
  // Servers that do not answer yet are re-checked on the namespace's settle tick for a while (connect-wait.ts).
  const poll = !reach.ok && waitsForServers(conditions, now) ? [keepSettleCheck(observed.namespace)] : [];
  return {
    summary: reach.message,
    schedules: poll,
    status: { conditions, observedGeneration: generation },
    dropClient: observed.dropClient,
    becameReady: reach.ok && !wasReady,
    answer: { kind: reach.ok ? "done" : "again", message: reach.message },
  };
}
