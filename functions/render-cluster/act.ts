// Carrying out render-cluster's decisions: phase 1 writes the route TLS Secrets an order asks for;
// the render then writes its objects, render-cluster's fields of the status, and last the
// render-failure annotations with their event.
import { FIELD_MANAGERS } from "../../shared/api/index.ts";
import { type EventRecorder, guarded, keyOf, type Kube, writeStatus } from "../../shared/kube/index.ts";
import { type Cluster, type IssueRouteTls } from "../cluster/index.ts";
import type { Decision } from "./decide.ts";
import { recordFailure } from "./failure.ts";
import type { Observed } from "./observe.ts";
import { renderedFields } from "./status.ts";
import { issueRouteTls } from "./tls/issue-route-tls.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.renderCluster;

/**
 * Phase 1: issues the route TLS Secrets the order asks for. The observation goes on with the
 * Secrets as they now stand (written here, or by a concurrent delivery that won the create).
 */
export async function actRouteTls(kube: Kube, observed: Observed, order: IssueRouteTls, now: Date): Promise<Observed> {
  if (observed.kind === "held") return observed;
  const routes = await issueRouteTls(kube, observed.cluster, observed.routes, order, now, FIELD_MANAGER);
  return { ...observed, routes };
}

/** Acts on a render decision made from `cluster` as read. */
export async function act(
  kube: Kube,
  recorder: () => Promise<EventRecorder>,
  cluster: Cluster,
  decision: Decision,
): Promise<void> {
  for (const write of decision.writes) {
    if (write.kind === "apply") await kube.apply(write.object, FIELD_MANAGER);
    else if (write.kind === "delete") await kube.delete(keyOf(write.object));
    // Lost to a concurrent create: the StatefulSet that exists now is the rollout's to change.
    else await guarded(() => kube.create(write.object));
  }
  // Unguarded: step-rollout owns the other fields of this status and writes them concurrently.
  if (decision.status) await writeStatus(kube, cluster, decision.status, FIELD_MANAGER, { owned: renderedFields });
  if (!decision.failure) return;
  const failure = decision.failure.kind === "set" ? decision.failure.failure : undefined;
  const regarding = await recordFailure(kube, cluster, failure);
  if (!regarding || decision.events.length === 0) return;
  const record = await recorder();
  for (const event of decision.events) await record.record(regarding, event.type, event.reason, event.note);
}
