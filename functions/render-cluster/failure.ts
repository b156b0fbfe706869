// What render-cluster tells the user about a failed reconcile: a Warning event, and the failure
// in an annotation step-rollout turns into `Progressing=False`. The reason is `ReconcileFailed`
// unless the failure names a more specific one (a refused trust), kept in a second annotation.
// Both are written only when the failure changes, so an unchanged world writes nothing. The
// annotation is written guarded by the resourceVersion, so of concurrent deliveries that find
// the same new failure, only one records the event.
import type { Kube } from "../../shared/kube/client.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import { guarded } from "../../shared/kube/guarded.ts";
import { keyOf } from "../../shared/kube/object.ts";
import {
  type Cluster,
  failureMessage,
  GENERIC_FAILURE_REASON,
  readCluster,
  type RenderFailure,
} from "../cluster/index.ts";
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/constants/annotations.ts";

const ATTEMPTS = 5;

/**
 * Records `failure` (undefined: the reconcile succeeded; a string: a `ReconcileFailed` message);
 * true when it wrote anything. On a write conflict it reads the NatsCluster again and looks once
 * more; a conflict that outlasts the attempts is thrown, so the delivery is retried.
 */
export async function reportFailure(
  kube: Kube,
  recorder: () => Promise<EventRecorder>,
  cluster: Cluster,
  failure: RenderFailure | string | undefined,
): Promise<boolean> {
  const named = typeof failure === "string" ? { reason: GENERIC_FAILURE_REASON, message: failure } : failure;
  const message = named === undefined ? undefined : failureMessage(named.message);
  const reason = named?.reason ?? GENERIC_FAILURE_REASON;
  // The reason annotation is kept only for a specific reason, so a generic failure writes one key.
  const reasonAnnotation = reason === GENERIC_FAILURE_REASON ? undefined : reason;
  let current: Cluster | undefined = cluster;
  for (let attempt = 1; current; attempt++) {
    const annotations = current.metadata.annotations ?? {};
    const reasonKept = annotations[RENDER_FAILURE_REASON_ANNOTATION] === reasonAnnotation;
    if (annotations[RENDER_FAILURE_ANNOTATION] === message && reasonKept) return false;
    const changes = {
      [RENDER_FAILURE_ANNOTATION]: message ?? null,
      ...(reasonKept ? {} : { [RENDER_FAILURE_REASON_ANNOTATION]: reasonAnnotation ?? null }),
    };
    const patch = { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: changes } };
    const key = keyOf(current);
    const written = await guarded(() => kube.patch(key, patch, "merge"));
    if (written.kind === "conflict") {
      if (attempt >= ATTEMPTS) throw written.error;
      current = await readCluster(kube, cluster.metadata.namespace, cluster.metadata.name);
      continue;
    }
    if (message !== undefined) await (await recorder()).record(current, "Warning", reason, message);
    return true;
  }
  return false;
}
