// Records a render failure on the NatsCluster (what it says: failure-annotations.ts). The
// annotations are written guarded by the resourceVersion, so of concurrent deliveries that find the
// same new failure, only one writes it and records its Warning event.
import { type EventRecorder, guarded, keyOf, type Kube } from "../../shared/kube/index.ts";
import { type Cluster, readCluster, type RenderFailure } from "../cluster/index.ts";
import { failureAnnotationChanges, failureEvent, namedFailure } from "./failure-annotations.ts";

const ATTEMPTS = 5;

/**
 * Makes the annotations record `failure` (undefined: none). Answers the NatsCluster as read when
 * this delivery's write held (the failure's event regards it), or undefined when nothing was
 * written. On a write conflict it reads the NatsCluster again and looks once more; a conflict that
 * outlasts the attempts is thrown, so the delivery is retried.
 */
export async function recordFailure(
  kube: Kube,
  cluster: Cluster,
  failure: RenderFailure | undefined,
): Promise<Cluster | undefined> {
  let current: Cluster | undefined = cluster;
  for (let attempt = 1; current; attempt++) {
    const changes = failureAnnotationChanges(current.metadata.annotations, failure);
    if (!changes) return undefined;
    const patch = { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: changes } };
    const key = keyOf(current);
    const written = await guarded(() => kube.patch(key, patch, "merge"));
    if (written.kind === "written") return current;
    if (attempt >= ATTEMPTS) throw written.error;
    current = await readCluster(kube, cluster.metadata.namespace, cluster.metadata.name);
  }
  return undefined;
}

/**
 * Records `failure` (a string: a `ReconcileFailed` message) and, when this delivery wrote it, tells
 * it in one Warning event; true when it wrote anything. Used where no decision was made: a delivery
 * that failed.
 */
export async function reportFailure(
  kube: Kube,
  recorder: () => Promise<EventRecorder>,
  cluster: Cluster,
  failure: RenderFailure | string | undefined,
): Promise<boolean> {
  const named = namedFailure(failure);
  const regarding = await recordFailure(kube, cluster, named);
  if (!regarding) return false;
  if (named) {
    const event = failureEvent(named);
    await (await recorder()).record(regarding, event.type, event.reason, event.note);
  }
  return true;
}
