// The gate before each rollout step, judged in a fixed order.
import { describeUnsettled, hasMetaGroup, judgeSettled, type Snapshot } from "./snapshot.ts";

export type WaitingFor = "Settled" | "Ready" | "TargetRevision" | "Evacuated" | "Removed";

export interface GateServer {
  name: string;
  planned: boolean;
  exists: boolean;
  onTarget: boolean;
  podReady: boolean;
  reportedRevision?: string;
}

export interface Gate {
  waitingFor: WaitingFor;
  detail: string;
}

/** Undefined when the gate is open; otherwise what it waits for. */
export function evaluateGate(
  servers: readonly GateServer[],
  snapshot: Snapshot | undefined,
  jetstream: boolean,
  target: string,
): Gate | undefined {
  if (!snapshot) return { waitingFor: "Settled", detail: "the NATS cluster is not observed" };
  const verdict = judgeSettled(snapshot);
  if (!verdict.settled) return { waitingFor: "Settled", detail: describeUnsettled(verdict) };
  if (jetstream && hasMetaGroup(snapshot)) {
    const answering = snapshot.roster.filter((s) => !snapshot.silent.includes(s));
    const outside = answering.filter((s) => !snapshot.metaMembers.includes(s));
    if (outside.length > 0)
      return {
        waitingFor: "Settled",
        detail: `${outside.join(", ")} ${outside.length === 1 ? "is" : "are"} not in the meta group`,
      };
  }
  const notReady = servers.filter((s) => (s.exists && !s.podReady) || (s.planned && !s.exists)).map((s) => s.name);
  if (notReady.length > 0) return { waitingFor: "Ready", detail: `${notReady.join(", ")} not Ready` };
  const unreported = servers.filter((s) => s.exists && s.onTarget && s.reportedRevision !== target).map((s) => s.name);
  if (unreported.length > 0)
    return { waitingFor: "TargetRevision", detail: `${unreported.join(", ")} not reporting revision ${target}` };
  return undefined;
}
