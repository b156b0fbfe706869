// Ready and Settled, each decided here and nowhere else (Progressing is the rollout's own, in plan.ts).
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { ServerInput } from "./types.ts";
import { judgeSettled, type Snapshot } from "./snapshot.ts";
import { clip } from "./pod-failure.ts";

/**
 * Ready: every planned server's pod Ready, a quorum of them, or not; False while a rendered name
 * is taken, and False while a server's pod is refused, cannot get its image, is OOM-killed or
 * crash-loops (the first such server's reason; the message names each server and its cause).
 */
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
  const failing = servers.filter((s) => s.planned && s.exists && !s.podReady && s.failure);
  const first = failing[0]?.failure;
  // A pod the cluster refuses or cannot keep running waits for a person, quorum or not.
  if (first)
    return {
      type: "Ready",
      status: "False",
      reason: first.reason,
      message: clip(`${message}; ${causes(failing)}`, 1024),
    };
  if (count >= replicas) return { type: "Ready", status: "True", reason: "AllServersReady", message };
  if (count > replicas / 2) return { type: "Ready", status: "True", reason: "QuorumAvailable", message };
  return { type: "Ready", status: "False", reason: "QuorumUnavailable", message };
}

/**
 * Ready with what removed servers left behind (H10): a Ready cluster reads False, ReconcileFailed,
 * naming each leftover; a cluster not Ready for another reason says that first.
 */
export function withLeftovers(ready: ConditionUpdate, leftovers: readonly string[]): ConditionUpdate {
  if (ready.status !== "True" || leftovers.length === 0) return ready;
  return {
    type: "Ready",
    status: "False",
    reason: "ReconcileFailed",
    message: clip(
      `${ready.message}; left behind by removed servers and not deleted (not theirs to delete): ` +
        `${leftovers.join(", ")}; delete them, or keep them and ignore this`,
      1024,
    ),
  };
}

/** "server demo-0: <cause>; servers demo-1, demo-2: <cause>", servers of one cause together, lowest ordinal first. */
function causes(failing: readonly ServerInput[]): string {
  const byCause = new Map<string, string[]>();
  for (const server of failing) {
    const cause = server.failure?.cause ?? "";
    byCause.set(cause, [...(byCause.get(cause) ?? []), server.name]);
  }
  return [...byCause]
    .map(([cause, names]) => `${names.length === 1 ? "server" : "servers"} ${names.join(", ")}: ${cause}`)
    .join("; ");
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
