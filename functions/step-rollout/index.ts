import { CLUSTER_ANNOTATIONS, RENDER_FAILURE_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import { dropSchedule, keepSchedule } from "../../shared/eventing/schedule.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { hasFinalizer } from "../../shared/kube/finalizers.ts";
import type { OperatorFunction } from "../../shared/runtime/function.ts";
import { conflict, done, skipped } from "../../shared/runtime/outcome.ts";
import { type Cluster, readCluster, resolveTarget, scheduleName } from "../cluster/index.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import { observeCluster } from "./observe.ts";
import { closeSystemConnections } from "./system-user.ts";

export const TICK_CRON = "*/10 * * * * *";

async function schedule(kube: Kube, cluster: Cluster, keep: boolean): Promise<void> {
  const name = scheduleName(cluster.metadata.name);
  if (keep) {
    await keepSchedule(kube, {
      namespace: cluster.metadata.namespace,
      name,
      cron: TICK_CRON,
      target: "step-rollout",
      work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
      owner: cluster,
    });
  } else await dropSchedule(kube, cluster.metadata.namespace, name);
}

/**
 * Observes a NatsCluster's servers and NATS cluster, decides (decide.ts, pure) the status, the
 * reloads and at most one rollout step, and acts on that decision once it has claimed it with a
 * status write guarded by the resourceVersion it observed: concurrent deliveries never take two
 * steps.
 */
export const stepRollout: OperatorFunction = {
  name: "step-rollout",
  kinds: ["NatsCluster.cluster.nats-operator.io", "StatefulSet.apps"],
  handlesPings: true,
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
    const cluster = await readCluster(kube, target.namespace, target.name);
    if (!cluster) return skipped(`NatsCluster ${target.namespace}/${target.name} is gone`);
    if (cluster.metadata.deletionTimestamp && !hasFinalizer(cluster, FINALIZERS.jetstreamData))
      return skipped("NatsCluster is being deleted");

    const now = context.now();
    const observed = await observeCluster(kube, cluster);
    const decision = decide(observed, now);
    const acted = await act(kube, await context.recorder(), observed, decision, now);
    if (acted.kind === "conflict")
      return conflict("NatsCluster changed while deciding; the decision is left to the delivery that claimed it");
    if (!(decision.kind === "finalize" && decision.release)) await schedule(kube, cluster, decision.poll);
    return done(decision.summary);
  },
  shutdown: closeSystemConnections,
};

export const handle = stepRollout.handle;
export { formatPreview, previewChange, type PreviewReport } from "./preview.ts";
