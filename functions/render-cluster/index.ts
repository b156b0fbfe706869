import { isConflict } from "../../shared/kube/guarded.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { FunctionContext, OperatorFunction } from "../../shared/runtime/function.ts";
import { done, skipped, withSchedules, type Outcome } from "../../shared/runtime/outcome.ts";
import { allowGatewayWithoutTls, type Cluster, readCluster, resolveTarget } from "../cluster/index.ts";
import { act, actRouteTls } from "./act.ts";
import { decide, decideRouteTls } from "./decide.ts";
import { reportFailure } from "./failure.ts";
import { observe } from "./observe.ts";
import { noRenderTicks } from "./schedule.ts";
import { INPUT_KINDS, isInputRef, renderReferrers } from "./referrers.ts";
import { routeCertificateDue } from "./status.ts";

/**
 * Renders a NatsCluster into its route TLS, Services, PDB and NetworkPolicy, and creates the
 * StatefulSet and ConfigMap of every server that does not exist yet; existing servers are changed
 * only by step-rollout. One delivery observes (observe.ts), issues the route TLS Secrets the render
 * is made of when they are missing or due (phase 1: decideRouteTls, actRouteTls), then decides
 * the render (decide.ts, pure) and acts on it.
 */
export const renderCluster: OperatorFunction = {
  name: "render-cluster",
  kinds: ["NatsCluster.cluster.nats-operator.io", "StatefulSet.apps", ...INPUT_KINDS],
  handlesPings: true,
  owns: ["NatsCluster.cluster.nats-operator.io"],
  // A mirrored trust's JWTs live in its status: their change is no echo here. A cluster whose
  // route certificate fell due is renewed on the resync tick after that time.
  caresAbout: (snapshot, now) => {
    const status: Record<string, unknown> = snapshot.status ?? {};
    return "operatorJWT" in status || "jwt" in status || routeCertificateDue(snapshot, now);
  },
  async handle(context) {
    const kube = await context.kube();
    const event = context.event;
    const renderOne = (cluster: Cluster) => reportingFailure(context, kube, cluster);
    if (event.source === "apiserver" && isInputRef(event.ref)) return renderReferrers(kube, event.ref, renderOne);
    const target = await resolveTarget(kube, event);
    if (target.kind === "none") return skipped(target.reason);
    const cluster = await readCluster(kube, target.namespace, target.name);
    const stopped = noRenderTicks(target.namespace, target.name);
    if (!cluster) return withSchedules(skipped(`NatsCluster ${target.namespace}/${target.name} is gone`), stopped);
    if (cluster.metadata.deletionTimestamp) return withSchedules(skipped("NatsCluster is being deleted"), stopped);
    return renderOne(cluster);
  },
};

async function render(context: FunctionContext, kube: Kube, cluster: Cluster): Promise<Outcome> {
  const now = context.now();
  let observed = await observe(kube, cluster);
  // Phase 1: the route TLS Secrets, whose certificate the render's revision is made of.
  const routes = decideRouteTls(observed, now);
  if (routes) observed = await actRouteTls(kube, observed, routes, now);
  // Phase 2: the render, from the Secrets as phase 1 left them.
  const decision = decide(observed, now, { allowGatewayWithoutTls: allowGatewayWithoutTls() });
  await act(kube, () => context.recorder(), cluster, decision);
  return withSchedules(done(decision.summary), decision.schedules);
}

/** A delivery that fails tells the user, once; a write conflict is only retried. */
async function reportingFailure(context: FunctionContext, kube: Kube, cluster: Cluster): Promise<Outcome> {
  try {
    return await render(context, kube, cluster);
  } catch (error) {
    if (!isConflict(error)) {
      const message = error instanceof Error ? error.message : String(error);
      await reportFailure(kube, () => context.recorder(), cluster, message).catch(() => undefined);
    }
    throw error;
  }
}

export const handle = renderCluster.handle;
