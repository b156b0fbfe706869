import { CLUSTER_ANNOTATIONS, RENDER_FAILURE_ANNOTATION, CLUSTER_REASONS } from "../../shared/api/index.ts";
import { defineFunction, type OperatorFunction } from "../../shared/runtime/index.ts";
import { PLAN_INPUT_KINDS } from "../cluster/index.ts";
import type { MonitorAddress } from "./servers/monitor.ts";
import { natsCluster } from "./nats-cluster/reconciler.ts";
import { closeSystemConnections } from "./servers/system-user.ts";

/**
 * Observes a NatsCluster's servers and NATS cluster, decides (decide.ts, pure) the status, the
 * reloads and at most one rollout step, and acts on that decision once it has claimed it with a
 * status write guarded by the resourceVersion it observed: concurrent deliveries never take two
 * steps. Every answer but a lost claim says whether the cluster's tick should go on; a lost claim
 * leaves that to the delivery that won it. `monitor` says where the servers' monitoring ports
 * are reached (tests point it elsewhere).
 */
export function createStepRollout(options: { monitor?: MonitorAddress } = {}): OperatorFunction {
  return defineFunction("step-rollout", [natsCluster(options.monitor)], {
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
      (snapshot.status?.conditions ?? []).some(
        (c) => c.type === "Progressing" && c.reason === CLUSTER_REASONS.ReconcileFailed,
      ),
    shutdown: closeSystemConnections,
    // It plans from them as render-cluster does; their events reach it only through render-cluster's poke.
    inputKinds: PLAN_INPUT_KINDS,
  });
}

/** step-rollout as it runs: servers' monitoring ports reached by their cluster DNS names. */
export const stepRollout = createStepRollout();

export const handle = stepRollout.handle;
export { formatPreview, previewChange, type PreviewReport } from "./preview/preview.ts";
