// The part of the NatsCluster status step-rollout owns, computed from a decision and an
// observation; the fields render-cluster owns are carried over untouched.
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import { setConditions } from "../../../shared/kube/index.ts";
import { type Cluster, type Hold, type ClusterPlan } from "../../cluster/index.ts";
import type { RolloutDecision, ServerInput } from "../rollout/types.ts";
import type { Snapshot } from "../rollout/snapshot.ts";

/** What the status is made of besides the decision. */
export interface StatusInputs {
  plan: ClusterPlan;
  hold?: Hold;
  servers: readonly ServerInput[];
  snapshot?: Snapshot;
}

export function nextStatus(
  cluster: Cluster,
  seen: StatusInputs,
  decision: RolloutDecision,
  now: Date,
  appliedBy: "Reload" | "Restart" = "Restart",
): NatsClusterStatus {
  const previous = cluster.status ?? {};
  const planned = seen.servers.filter((s) => s.planned);
  const offTarget = seen.servers.filter((s) => s.planned && s.exists && !s.onTarget && s.restartReason);
  const reasons = [...new Set(offTarget.map((s) => s.restartReason ?? ""))].filter(Boolean);
  const versions = new Set(planned.map((s) => s.reportedVersion));
  const version =
    planned.length > 0 && versions.size === 1 && planned.every((s) => s.reportedVersion)
      ? planned[0]?.reportedVersion
      : previous.version;
  const conditions = setConditions(previous.conditions, decision.conditions, now).map((c) => ({
    ...c,
    observedGeneration: cluster.metadata.generation ?? 0,
  }));
  const status: NatsClusterStatus = {
    ...previous,
    observedGeneration: cluster.metadata.generation ?? 0,
    conditions,
    readyReplicas: planned.filter((s) => s.exists && s.podReady).length,
    // Held, the revision in force is the last rendered one, not the plan's (which lacks the trust).
    config:
      seen.hold && previous.config
        ? previous.config
        : {
            revision: seen.plan.revision,
            appliedBy,
            ...(reasons.length > 0 ? { restartReason: reasons.join("; ") } : {}),
          },
    servers: seen.servers
      .filter((s) => s.exists)
      .map((s) => ({
        name: s.name,
        ...(s.reportedVersion ? { version: s.reportedVersion } : {}),
        ready: s.podReady,
        ...(s.reportedRevision ? { configRevision: s.reportedRevision } : {}),
      })),
    jetstream: { ...(previous.jetstream ?? {}), metaLeader: seen.snapshot?.metaLeader ?? "" },
  };
  if (!cluster.spec.jetstream) delete status.jetstream;
  if (version) status.version = version;
  if (decision.removals.length > 0) status.removals = decision.removals;
  else delete status.removals;
  // The counts are what `kubectl get` can print: a printer column cannot count a list.
  if (decision.rollout)
    status.rollout = {
      ...decision.rollout,
      updatedCount: decision.rollout.updated?.length ?? 0,
      pendingCount: decision.rollout.pending?.length ?? 0,
    };
  else delete status.rollout;
  return status;
}
