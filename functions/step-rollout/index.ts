import { CLUSTER_ANNOTATIONS, RENDER_FAILURE_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import { hasFinalizer } from "../../shared/kube/finalizers.ts";
import type { OperatorFunction } from "../../shared/runtime/function.ts";
import { conflict, done, skipped, withSchedules } from "../../shared/runtime/outcome.ts";
import { stopPolling } from "../../shared/runtime/schedule.ts";
import { readCluster, resolveTarget, rolloutPoll, scheduleName } from "../cluster/index.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import type { MonitorAddress } from "./monitor.ts";
import { observeCluster } from "./observe.ts";
import { closeSystemConnections } from "./system-user.ts";

/**
 * Observes a NatsCluster's servers and NATS cluster, decides (decide.ts, pure) the status, the
 * reloads and at most one rollout step, and acts on that decision once it has claimed it with a
 * status write guarded by the resourceVersion it observed: concurrent deliveries never take two
 * steps. Every answer but a lost claim says whether the cluster's tick should go on; a lost claim
 * leaves that to the delivery that won it. `monitor` says where the servers' monitoring ports
 * are reached (tests point it elsewhere).
 */
export function createStepRollout(options: { monitor?: MonitorAddress } = {}): OperatorFunction {
  return {
    name: "step-rollout",
    kinds: ["NatsCluster.cluster.nats-operator.io", "StatefulSet.apps"],
    handlesPings: true,
    owns: ["NatsCluster.cluster.nats-operator.io"],
    actionAnnotations: [
      CLUSTER_ANNOTATIONS.forceStep,
      CLUSTER_ANNOTATIONS.forceDelete,
      CLUSTER_ANNOTATIONS.replaceServer,
      CLUSTER_ANNOTATIONS.restartAll,
      RENDER_FAILURE_ANNOTATION,
    ],
    // A render failure that render-cluster has since cleared: Progressing still shows it.
    caresAbout: (snapshot) =>
      !(RENDER_FAILURE_ANNOTATION in (snapshot.metadata?.annotations ?? {})) &&
      (snapshot.status?.conditions ?? []).some((c) => c.type === "Progressing" && c.reason === "ReconcileFailed"),
    async handle(context) {
      const kube = await context.kube();
      const target = await resolveTarget(kube, context.event);
      if (target.kind === "none") return skipped(target.reason);
      const noTick = [stopPolling({ namespace: target.namespace, name: scheduleName(target.name) })];
      const cluster = await readCluster(kube, target.namespace, target.name);
      if (!cluster) return withSchedules(skipped(`NatsCluster ${target.namespace}/${target.name} is gone`), noTick);
      if (cluster.metadata.deletionTimestamp && !hasFinalizer(cluster, FINALIZERS.jetstreamData))
        return withSchedules(skipped("NatsCluster is being deleted"), noTick);

      const now = context.now();
      const observed = await observeCluster(kube, cluster, options.monitor);
      const decision = decide(observed, now);
      const acted = await act(kube, await context.recorder(), observed, decision, now);
      if (acted.kind === "conflict")
        return conflict("NatsCluster changed while deciding; the decision is left to the delivery that claimed it");
      return withSchedules(done(decision.summary), [rolloutPoll(cluster, decision.poll)]);
    },
    shutdown: closeSystemConnections,
  };
}

/** step-rollout as it runs: servers' monitoring ports reached by their cluster DNS names. */
export const stepRollout = createStepRollout();

export const handle = stepRollout.handle;
export { formatPreview, previewChange, type PreviewReport } from "./preview.ts";
