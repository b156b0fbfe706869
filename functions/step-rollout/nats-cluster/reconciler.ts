// step-rollout's NatsCluster reconciler: its servers' StatefulSets and its own tick lead here
// too. A NatsCluster being deleted is still reconciled while it holds the jetstream-data
// finalizer: the deletion guard (deletion.ts) is decided from what is observed, as a step is.
import { FINALIZERS } from "../../../shared/api/index.ts";
import { hasFinalizer } from "../../../shared/kube/index.ts";
import { type Reconciler, stopPolling } from "../../../shared/runtime/index.ts";
import {
  type Cluster,
  CLUSTER_REF,
  fromClusterTicks,
  fromServerStatefulSets,
  LINK_WATCH_POLL,
  readCluster,
  ROLLOUT_POLL,
  rolloutPoll,
  scheduleName,
} from "../../cluster/index.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import type { Decision, Observed } from "./types.ts";
import type { MonitorAddress } from "../servers/monitor.ts";
import { observeCluster } from "./observe.ts";

/** A decision with what it was made from: act carries it out on that observation, at that time. */
type Decided = Decision & { readonly observed: Observed; readonly now: Date };

/** `monitor`: where the servers' monitoring ports are reached (tests point it elsewhere). */
export function natsCluster(monitor?: MonitorAddress): Reconciler<Cluster, Observed, Decided> {
  return {
    kind: CLUSTER_REF,
    related: [fromServerStatefulSets, fromClusterTicks],
    load: (key, { kube }) => readCluster(kube, key.namespace, key.name),
    schedulesOf: (key) => [stopPolling({ namespace: key.namespace, name: scheduleName(key.name) })],
    reconcilesWhileDeleting: (cluster) => hasFinalizer(cluster, FINALIZERS.jetstreamData),
    observe: (cluster, context) => observeCluster(context.kube, cluster, monitor, context.now()),
    decide: (observed, now) => ({ ...decide(observed, now), observed, now }),
    async act(_cluster, decided, { kube, recorder }) {
      const acted = await act(kube, await recorder(), decided.observed, decided, decided.now);
      // A lost claim names no schedule: the delivery that won it says.
      if (acted.kind === "conflict")
        return {
          kind: "conflict",
          message: "NatsCluster changed while deciding; the decision is left to the delivery that claimed it",
        };
      const { cluster } = decided.observed;
      const schedule = decided.poll
        ? rolloutPoll(cluster, true, ROLLOUT_POLL)
        : rolloutPoll(cluster, decided.watchLinks, LINK_WATCH_POLL);
      return { kind: "done", schedules: [schedule] };
    },
  };
}
