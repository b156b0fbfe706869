// step-rollout's tick, declared by step-rollout while a rollout moves and by render-cluster when a
// new revision (a renewed certificate, a changed trust) needs a rollout that no event would start.
import { keepPolling, type Poll, type ScheduleDecision, stopPolling } from "../../shared/runtime/index.ts";
import type { Cluster } from "./cluster.ts";
import { scheduleName } from "./names.ts";

/** How often step-rollout looks while a rollout moves. */
export const ROLLOUT_POLL: Poll = { every: "10s" };

/** step-rollout's `<cluster>-rollout` schedule, owned by the NatsCluster: ticking or not. */
export function rolloutPoll(cluster: Cluster, polling: boolean): ScheduleDecision {
  const id = { namespace: cluster.metadata.namespace, name: scheduleName(cluster.metadata.name) };
  if (!polling) return stopPolling(id);
  return keepPolling(
    {
      ...id,
      target: "step-rollout",
      work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
      scope: { kind: "object", owner: cluster },
    },
    ROLLOUT_POLL,
  );
}
