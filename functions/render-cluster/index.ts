import type { Kube } from "../../shared/kube/client.ts";
import { isConflict } from "../../shared/kube/guarded.ts";
import type { ObjectRef } from "../../shared/runtime/event.ts";
import type { FunctionContext, OperatorFunction } from "../../shared/runtime/function.ts";
import { done, skipped, withSchedules, type Outcome } from "../../shared/runtime/outcome.ts";
import type { ScheduleDecision } from "../../shared/runtime/schedule.ts";
import {
  clientTlsSecretName,
  type Cluster,
  operatorNamespace,
  planCluster,
  readCluster,
  type RefusedTrust,
  resolveTarget,
  resolveTrust,
  rolloutPoll,
  routeTlsPlan,
} from "../cluster/index.ts";
import { RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import { applyPlan, FIELD_MANAGER } from "./apply.ts";
import { reportFailure } from "./failure.ts";
import { observeRendered } from "./observe.ts";
import { noRenderTicks, renderPoll, renewalTick } from "./schedule.ts";
import { writeRenderedStatus } from "./status.ts";
import { clustersNaming, isTrustRef, TRUST_KINDS } from "./trust-referrers.ts";
import { ensureRouteTls, type SecretObject } from "./tls/route-secrets.ts";

/**
 * Renders a NatsCluster into its route TLS, Services, PDB and NetworkPolicy, and creates the
 * StatefulSet and ConfigMap of every server that does not exist yet. Existing servers are
 * changed only by step-rollout, one at a time.
 */
export const renderCluster: OperatorFunction = {
  name: "render-cluster",
  kinds: ["NatsCluster.cluster.nats-operator.io", "StatefulSet.apps", ...TRUST_KINDS],
  handlesPings: true,
  // A mirrored trust's JWTs live in its status: their change is no echo here.
  caresAbout: (snapshot) => {
    const status: Record<string, unknown> = snapshot.status ?? {};
    return "operatorJWT" in status || "jwt" in status;
  },
  async handle(context) {
    const kube = await context.kube();
    const event = context.event;
    if (event.source === "apiserver" && isTrustRef(event.ref)) return renderReferrers(context, kube, event.ref);
    const target = await resolveTarget(kube, event);
    if (target.kind === "none") return skipped(target.reason);
    const cluster = await readCluster(kube, target.namespace, target.name);
    const stopped = noRenderTicks(target.namespace, target.name);
    if (!cluster) return withSchedules(skipped(`NatsCluster ${target.namespace}/${target.name} is gone`), stopped);
    if (cluster.metadata.deletionTimestamp) return withSchedules(skipped("NatsCluster is being deleted"), stopped);
    return renderReporting(context, kube, cluster);
  },
};

async function renderReporting(context: FunctionContext, kube: Kube, cluster: Cluster): Promise<Outcome> {
  try {
    return await render(context, kube, cluster);
  } catch (error) {
    // A write conflict is retried quietly; anything else is also told to the user, once.
    if (!isConflict(error)) {
      await reportFailure(
        kube,
        () => context.recorder(),
        cluster,
        error instanceof Error ? error.message : String(error),
      ).catch(() => undefined);
    }
    throw error;
  }
}

/**
 * A trust changed: every NatsCluster naming it is rendered again, and step-rollout is poked,
 * since at rest it has no tick that would notice the new revision (C31 rolls it out).
 */
async function renderReferrers(context: FunctionContext, kube: Kube, trust: ObjectRef): Promise<Outcome> {
  const clusters = await clustersNaming(kube, trust);
  if (clusters.length === 0) return skipped(`no NatsCluster names ${trust.kind} ${trust.namespace}/${trust.name}`);
  const rendered: string[] = [];
  const schedules: ScheduleDecision[][] = [];
  for (const cluster of clusters) {
    const outcome = await renderReporting(context, kube, cluster);
    schedules.push([...(outcome.schedules ?? []), rolloutPoll(cluster, true)]);
    rendered.push(
      `${cluster.metadata.namespace}/${cluster.metadata.name}: ${outcome.kind === "done" ? outcome.summary : outcome.kind}`,
    );
  }
  return withSchedules(
    done(`${trust.kind} ${trust.namespace}/${trust.name} changed; ${rendered.join("; ")}`),
    ...schedules,
  );
}

/**
 * While the trust is refused, nothing is rendered: servers not yet created wait, existing ones
 * keep their last render (C41, C42). The refusal is recorded as the render failure, with its
 * own reason, and a poll looks for the trust again.
 */
async function hold(context: FunctionContext, kube: Kube, cluster: Cluster, refused: RefusedTrust): Promise<Outcome> {
  await reportFailure(kube, () => context.recorder(), cluster, { reason: refused.reason, message: refused.message });
  return withSchedules(done(`held, ${refused.reason}: ${refused.message}`), [renderPoll(cluster, "trust")]);
}

async function render(context: FunctionContext, kube: Kube, cluster: Cluster): Promise<Outcome> {
  const trust = await resolveTrust(kube, cluster);
  if (trust?.kind === "refused") return hold(context, kube, cluster, trust);
  const routeTls = await ensureRouteTls(kube, cluster, routeTlsPlan(cluster), context.now(), FIELD_MANAGER);
  const clientSecret = clientTlsSecretName(cluster);
  const clientTls = clientSecret
    ? await kube.get<SecretObject>({
        apiVersion: "v1",
        kind: "Secret",
        namespace: cluster.metadata.namespace,
        name: clientSecret,
      })
    : undefined;
  const ns = operatorNamespace();
  const plan = planCluster({
    cluster,
    ...(routeTls.kind === "ready" ? { routeTlsData: routeTls.data } : {}),
    ...(clientTls?.data ? { clientTlsData: clientTls.data } : {}),
    ...(ns ? { operatorNamespace: ns } : {}),
    ...(trust ? { trust } : {}),
  });
  const certificatesReady = routeTls.kind === "ready" || routeTls.kind === "off";
  const clientReady = !clientSecret || Boolean(clientTls?.data?.["tls.crt"]);
  const seen = await observeRendered(kube, plan, cluster.metadata.namespace);
  const applied = await applyPlan(kube, cluster, plan, seen, certificatesReady && clientReady);
  const foreign = [...(routeTls.kind === "foreign" ? routeTls.objects : []), ...applied.foreign];
  await writeRenderedStatus(kube, cluster, plan.status);
  const schedules: ScheduleDecision[] = [];
  if (routeTls.kind === "ready" && routeTls.renewAt) schedules.push(renewalTick(cluster, routeTls.renewAt));
  // step-rollout at rest has no tick that would notice the renewed certificate's revision.
  if (routeTls.kind === "ready" && routeTls.renewed) schedules.push(rolloutPoll(cluster, true));
  // A replaced server comes back once its old claim is gone.
  if (applied.claimTerminating.length > 0) schedules.push(renderPoll(cluster, "claim"));
  // Otherwise a poll can exist only under auth, when auth went away while the trust was
  // refused, or while a server is being replaced; elsewhere it is not named, which saves
  // every render of a plain cluster a DELETE that would find nothing.
  else if (
    cluster.spec.auth ||
    cluster.metadata.annotations?.[RENDER_FAILURE_REASON_ANNOTATION] !== undefined ||
    cluster.status?.removals !== undefined
  ) {
    schedules.push(renderPoll(cluster, "nothing"));
  }
  // Last, so a failure of any write above is what the annotation keeps.
  await reportFailure(
    kube,
    () => context.recorder(),
    cluster,
    foreign.length > 0 ? `not controlled by this NatsCluster, left untouched: ${foreign.join(", ")}` : undefined,
  );
  const parts = [`revision ${plan.revision}`];
  if (applied.created.length > 0) parts.push(`created ${applied.created.join(", ")}`);
  if (routeTls.kind === "waiting") parts.push(routeTls.message);
  if (applied.claimTerminating.length > 0)
    parts.push(`waiting for the old claim of ${applied.claimTerminating.join(", ")}`);
  if (foreign.length > 0) parts.push(`foreign: ${foreign.join(", ")}`);
  return withSchedules(done(parts.join("; ")), schedules);
}

export const handle = renderCluster.handle;
