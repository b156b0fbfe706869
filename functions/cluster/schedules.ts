// step-rollout's tick, declared by step-rollout while a rollout moves and by render-cluster when a
// new revision (a renewed certificate, a changed trust) needs a rollout that no event would start;
// at rest, slower, while the cluster has links (a gateway, leaf remotes) whose loss no event tells.
import { keepPolling, type Poll, type ScheduleDecision, stopPolling } from "../../shared/runtime/index.ts";
import type { Cluster } from "./cluster.ts";
import { scheduleName } from "./names.ts";

/** How often step-rollout looks while a rollout moves. */
export const ROLLOUT_POLL: Poll = { every: "10s" };

/**
 * How often step-rollout looks at a cluster at rest that has a gateway or leaf remotes: a link
 * lost (the hub gone, the network between sites down) sends no Kubernetes event, and the
 * conditions that report links must not keep saying True for a link that is gone.
 */
export const LINK_WATCH_POLL: Poll = { every: "1m" };

/** step-rollout's `<cluster>-rollout` schedule, owned by the NatsCluster: ticking (every `poll`) or not. */
export function rolloutPoll(cluster: Cluster, polling: boolean, poll: Poll = ROLLOUT_POLL): ScheduleDecision {
  const id = { namespace: cluster.metadata.namespace, name: scheduleName(cluster.metadata.name) };
  if (!polling) return stopPolling(id);
  return keepPolling(
    {
      ...id,
      target: "step-rollout",
      work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
      scope: { kind: "object", owner: cluster },
    },
    poll,
  );
}
