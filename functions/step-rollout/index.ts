import { CLUSTER_ANNOTATIONS, RENDER_FAILURE_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { setConditions, type Condition } from "../../shared/kube/conditions.ts";
import { jsonEqual } from "../../shared/kube/equal.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import { addFinalizer, hasFinalizer, removeFinalizer } from "../../shared/kube/finalizers.ts";
import type { FunctionContext, OperatorFunction } from "../../shared/runtime/function.ts";
import { conflict, done, skipped, withSchedules, type Outcome } from "../../shared/runtime/outcome.ts";
import { type Cluster, readCluster, resolveTarget, rolloutPoll } from "../cluster/index.ts";
import { clearAnnotation, deleteServer, restartServer, takeReplaceRequest } from "./act.ts";
import { applyConfigChanges } from "./apply-config.ts";
import { appliedBy } from "./config-apply.ts";
import { judgeDeletion } from "./deletion.ts";
import type { MonitorAddress } from "./monitor.ts";
import { observeCluster } from "./observe.ts";
import { planRollout, type Removal, type RolloutStatus } from "./plan.ts";
import { nextStatus } from "./status.ts";
import { closeSystemConnections, readSystemUser, sendRemovalRequest } from "./system-user.ts";

/** Where the servers' monitoring ports are reached; tests point it elsewhere. */
let monitorAddress: MonitorAddress | undefined;
export function setMonitorAddress(address: MonitorAddress | undefined): void {
  monitorAddress = address;
}

/** Writes status guarded by the resourceVersion read at the start; false on a conflict. */
async function writeStatus(kube: Kube, cluster: Cluster, status: Cluster["status"]): Promise<boolean> {
  if (jsonEqual(cluster.status, status)) return true;
  try {
    await kube.replaceStatus({ ...cluster, status });
    return true;
  } catch (error) {
    if (error instanceof KubeRequestError && error.isConflict) return false;
    throw error;
  }
}

async function finalize(context: FunctionContext, kube: Kube, cluster: Cluster): Promise<Outcome> {
  if (!hasFinalizer(cluster, FINALIZERS.jetstreamData)) return skipped("NatsCluster is being deleted");
  const seen = await observeCluster(kube, cluster, monitorAddress);
  const forceDelete = cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.forceDelete] !== undefined;
  const verdict = judgeDeletion(seen.snapshot, forceDelete);
  const conditions = setConditions(
    cluster.status?.conditions as Condition[] | undefined,
    [verdict.condition],
    context.now(),
  );
  if (verdict.release) {
    await removeFinalizer(kube, cluster, FINALIZERS.jetstreamData);
    return done(`finalizer released: ${verdict.condition.message}`);
  }
  if (!(await writeStatus(kube, cluster, { ...(cluster.status ?? {}), conditions })))
    return conflict("NatsCluster changed while deciding");
  return withSchedules(done(`deletion waits: ${verdict.condition.message}`), [rolloutPoll(cluster, true)]);
}

/**
 * Observes a NatsCluster's servers and NATS cluster, carries every reload a step further,
 * writes its status, and takes at most one rollout step: restart one server, or remove one. The step is claimed with a status write
 * guarded by the resourceVersion read first, so concurrent deliveries never take two steps.
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
    let cluster = await readCluster(kube, target.namespace, target.name);
    if (!cluster) return skipped(`NatsCluster ${target.namespace}/${target.name} is gone`);
    if (cluster.metadata.deletionTimestamp) return finalize(context, kube, cluster);

    const jetstream = cluster.spec.jetstream !== undefined;
    if (jetstream && !hasFinalizer(cluster, FINALIZERS.jetstreamData))
      cluster = await addFinalizer(kube, cluster, FINALIZERS.jetstreamData);
    else if (!jetstream && hasFinalizer(cluster, FINALIZERS.jetstreamData))
      cluster = await removeFinalizer(kube, cluster, FINALIZERS.jetstreamData);

    if (cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.replaceServer] !== undefined) {
      await takeReplaceRequest(kube, cluster);
      cluster = (await readCluster(kube, target.namespace, target.name)) ?? cluster;
    }

    const now = context.now();
    const observed = await observeCluster(kube, cluster, monitorAddress);
    // Evacuation and reload both go through the system user, with or without JetStream.
    const systemUser = await readSystemUser(kube, cluster, observed.plan);
    // Reloads first, all at once (they are not rollout steps); then the rollout sees reloaded
    // servers on target and servers still reloading aside.
    const applied = await applyConfigChanges(kube, cluster, observed, systemUser, now);
    const seen = { ...observed, servers: applied.servers };
    const forceStep = cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.forceStep];
    const renderFailure = cluster.metadata.annotations?.[RENDER_FAILURE_ANNOTATION];
    const previousProgressing = (cluster.status?.conditions as Condition[] | undefined)?.find(
      (c) => c.type === "Progressing",
    )?.reason;
    const decision = planRollout({
      cluster: cluster.metadata.name,
      replicas: cluster.spec.replicas,
      targetRevision: seen.plan.revision,
      jetstream,
      canEvacuate: systemUser.kind === "ready",
      ...(systemUser.kind === "unusable" ? { evacuationUnavailable: systemUser.message } : {}),
      servers: seen.servers,
      ...(seen.snapshot ? { snapshot: seen.snapshot } : {}),
      paused: cluster.spec.rollout?.paused === true,
      ...(seen.hold
        ? { hold: seen.hold }
        : seen.certificatesReady
          ? {}
          : { hold: { reason: "RouteCertificateNotReady", message: "waiting for the route or client TLS Secret" } }),
      ...(forceStep ? { forceStep } : {}),
      restartAll: cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.restartAll] !== undefined,
      ...(cluster.status?.rollout?.targetRevision ? { previous: cluster.status.rollout as RolloutStatus } : {}),
      ...(previousProgressing ? { previousProgressingReason: previousProgressing } : {}),
      ...(cluster.status?.removals ? { previousRemovals: cluster.status.removals as Removal[] } : {}),
      foreign: seen.foreign,
      ...(renderFailure !== undefined ? { renderFailure } : {}),
      now,
    });
    const status = nextStatus(cluster, seen, decision, now, appliedBy(seen.plan.revision, applied.marks));
    // The claim: only one of several concurrent deliveries gets past this write.
    if (!(await writeStatus(kube, cluster, status)))
      return conflict("NatsCluster changed while deciding; the step is left to the delivery that claimed it");

    const recorder = await context.recorder();
    const step = decision.step;
    const restart = async (server: string) => {
      const planned = seen.plan.servers.find((s) => s.name === server);
      if (planned) await restartServer(kube, planned, seen.servers.find((s) => s.name === server)?.restartReason);
    };
    if (step.kind === "restart") await restart(step.server);
    else if (step.kind === "restart-all") await Promise.all(step.servers.map(restart));
    else if (step.kind === "delete") {
      await deleteServer(kube, cluster, step.server, step.surplus);
    } else if (step.kind !== "none" && systemUser.kind === "ready") {
      await sendRemovalRequest(cluster, systemUser, step);
    }
    if (decision.stepEvent) await recorder.record(cluster, "Normal", "RolloutStep", decision.stepEvent);
    if (decision.gateBlockedEvent) await recorder.record(cluster, "Warning", "GateBlocked", decision.gateBlockedEvent);
    if (decision.clearForceStep) await clearAnnotation(kube, cluster, CLUSTER_ANNOTATIONS.forceStep);
    if (decision.clearRestartAll) await clearAnnotation(kube, cluster, CLUSTER_ANNOTATIONS.restartAll);
    const progressing = decision.conditions.find((c) => c.type === "Progressing");
    const reloads = applied.pending.map((p) => `${p.server}: ${p.detail}`).join("; ");
    const said =
      step.kind === "none"
        ? `${progressing?.reason ?? ""}: ${progressing?.message ?? ""}`
        : (decision.stepEvent ?? `${step.kind} again`);
    return withSchedules(done(reloads ? `${said} (reload pending: ${reloads})` : said), [
      rolloutPoll(cluster, decision.polling),
    ]);
  },
  shutdown: closeSystemConnections,
};

export const handle = stepRollout.handle;
