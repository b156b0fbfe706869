// Ready and Settled, each decided here and nowhere else (Progressing is the rollout's own, in plan.ts).
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { ServerInput } from "./types.ts";
import { judgeSettled, type Snapshot } from "./snapshot.ts";

/** Ready: every planned server's pod Ready, a quorum of them, or not; False while a rendered name is taken. */
export function ready(servers: readonly ServerInput[], replicas: number, foreign: readonly string[]): ConditionUpdate {
  if (foreign.length > 0)
    return {
      type: "Ready",
      status: "False",
      reason: "ReconcileFailed",
      message: `not controlled by this NatsCluster: ${foreign.join(", ")}`,
    };
  const count = servers.filter((s) => s.planned && s.exists && s.podReady).length;
  const message = `${count} of ${replicas} servers ready`;
  if (count >= replicas) return { type: "Ready", status: "True", reason: "AllServersReady", message };
  if (count > replicas / 2) return { type: "Ready", status: "True", reason: "QuorumAvailable", message };
  return { type: "Ready", status: "False", reason: "QuorumUnavailable", message };
}

/**
 * Settled: every Raft group led and every member current, as the snapshot shows it; without a
 * snapshot, Unknown with why no server counted as answering.
 */
export function settledCondition(snapshot: Snapshot | undefined, unobserved?: string): ConditionUpdate {
  if (!snapshot)
    return {
      type: "Settled",
      status: "Unknown",
      reason: "ObservationFailed",
      message: `the NATS cluster is not observed${unobserved ? `: ${unobserved}` : ""}`,
    };
  const verdict = judgeSettled(snapshot);
  return {
    type: "Settled",
    status: verdict.settled ? "True" : "False",
    reason: verdict.reason,
    message: verdict.message,
  };
}
