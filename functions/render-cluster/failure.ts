// What render-cluster tells the user about a failed reconcile: a ReconcileFailed Warning event,
// and the failure in an annotation step-rollout turns into `Progressing=False, ReconcileFailed`.
// Both are written only when the failure changes, so an unchanged world writes nothing. The
// annotation is written guarded by the resourceVersion, so of concurrent deliveries that find
// the same new failure, only one records the event.
import type { Kube } from "../../shared/kube/client.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import { keyOf } from "../../shared/kube/object.ts";
import { failureMessage, RENDER_FAILURE_ANNOTATION } from "../cluster-shared/annotations.ts";
import type { Cluster } from "../cluster-shared/cluster.ts";
import { readCluster } from "../cluster-shared/target.ts";

const ATTEMPTS = 5;

/**
 * Records `failure` (undefined: the reconcile succeeded); true when it wrote anything. On a
 * write conflict it reads the NatsCluster again and looks once more; a conflict that outlasts
 * the attempts is thrown, so the delivery is retried.
 */
export async function reportFailure(kube: Kube, recorder: () => Promise<EventRecorder>, cluster: Cluster, failure: string | undefined): Promise<boolean> {
  const message = failure === undefined ? undefined : failureMessage(failure);
  let current: Cluster | undefined = cluster;
  for (let attempt = 1; current; attempt++) {
    if (current.metadata.annotations?.[RENDER_FAILURE_ANNOTATION] === message) return false;
    try {
      const patch = { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [RENDER_FAILURE_ANNOTATION]: message ?? null } } };
      await kube.patch(keyOf(current), patch, "merge");
    } catch (error) {
      if (!(error instanceof KubeRequestError && error.isConflict) || attempt >= ATTEMPTS) throw error;
      current = await readCluster(kube, cluster.metadata.namespace, cluster.metadata.name);
      continue;
    }
    if (message !== undefined) await (await recorder()).record(current, "Warning", "ReconcileFailed", message);
    return true;
  }
  return false;
}
