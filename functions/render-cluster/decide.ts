// The decision of one render-cluster delivery, from what observe.ts read and the time: pure, so
// the same observation always gives the same decision. Route TLS is decided first, on its own
// (decideRouteTls): the render's revision is made of the certificate the servers mount, so a
// leaf issued or renewed in this delivery is written before the render is decided from it.
import type { ScheduleDecision } from "../../shared/runtime/index.ts";
import {
  clientTlsSecretName,
  type Cluster,
  type IssueRouteTls,
  judgeRouteTls,
  planOf,
  type PlanOptions,
  type RenderFailure,
} from "../cluster/index.ts";
import { failureAnnotationChanges, failureEvent, namedFailure } from "./failure-annotations.ts";
import type { HeldCluster, Observed, RenderableCluster } from "./observe.ts";
import { renderPoll, renderSchedules } from "./schedule.ts";
import { renderedStatus, type RenderedStatus } from "./status.ts";
import { judgeCertificates } from "./tls/certificates.ts";
import { type RenderWrite, renderWrites } from "./writes.ts";

/** A Kubernetes Event to record on the NatsCluster. */
export interface ClusterEvent {
  type: "Normal" | "Warning";
  reason: string;
  note: string;
}

/** How the render-failure annotations change: set to a failure, or cleared. */
export type FailureChange = { kind: "set"; failure: RenderFailure } | { kind: "clear" };

export interface Decision {
  /** The rendered objects to write, in order. */
  writes: RenderWrite[];
  /** render-cluster's fields of the status; absent while held (nothing is rendered). */
  status?: RenderedStatus;
  /** Absent when the annotations already say what this render came to. Written last, so a failed write above stays recorded. */
  failure?: FailureChange;
  /** Recorded by the delivery whose failure write holds: concurrent deliveries tell a failure once. */
  events: ClusterEvent[];
  schedules: ScheduleDecision[];
  summary: string;
}

/** What a render is decided with besides the observation: how the operator was started. */
export type RenderOptions = PlanOptions;

const DEFAULT_OPTIONS: RenderOptions = { allowGatewayWithoutTls: false };

/** Phase 1: the route TLS Secrets to issue or renew before the render, if any. None while held. */
export function decideRouteTls(observed: Observed, now: Date): IssueRouteTls | undefined {
  if (observed.kind === "held") return undefined;
  const judged = judgeRouteTls(observed.routes, observed.cluster, now);
  return judged.kind === "issue" ? judged : undefined;
}

/** The failure annotations' change and its event, when `failure` is not what they record. */
function failureDecision(cluster: Cluster, failure: RenderFailure | undefined): Pick<Decision, "failure" | "events"> {
  if (!failureAnnotationChanges(cluster.metadata.annotations, failure)) return { events: [] };
  if (!failure) return { failure: { kind: "clear" }, events: [] };
  return { failure: { kind: "set", failure }, events: [failureEvent(failure)] };
}

/**
 * While the trust is refused, nothing is rendered: servers not yet created wait, existing ones
 * keep their last render (C41, C42). The refusal is recorded as the render failure, with its
 * own reason, and a poll looks for the trust again.
 */
function decideHold({ cluster, refused }: HeldCluster): Decision {
  return {
    writes: [],
    ...failureDecision(cluster, { reason: refused.reason, message: refused.message }),
    schedules: [renderPoll(cluster, "trust")],
    summary: `held, ${refused.reason}: ${refused.message}`,
  };
}

function decideRender(observed: RenderableCluster, now: Date, options: RenderOptions): Decision {
  const { cluster } = observed;
  // Planned and judged as step-rollout plans and judges it, so both see the same revision.
  const { plan, routeTls, listeners, clientReady } = planOf(observed, now, options);
  // A gateway in clear is refused whole (C47): nothing is rendered, existing servers keep their last render.
  if (listeners.kind === "refused") {
    return {
      writes: [],
      ...failureDecision(cluster, { reason: listeners.reason, message: listeners.message }),
      schedules: [],
      summary: `held, ${listeners.reason}: ${listeners.message}`,
    };
  }
  // Certificates go first: cert-manager issues the Secrets the new servers wait for.
  const certificates = judgeCertificates(cluster, observed.certificates);
  // An issuer that does not exist holds the render as a refused trust does: no server is created,
  // no shared object written, and existing servers keep their last render. Only the Certificates
  // are applied (see judgeCertificates), so the issuer that appears is used at once.
  if (certificates.hold) {
    const { reason, message } = certificates.hold;
    return {
      writes: certificates.writes,
      ...failureDecision(cluster, certificates.hold),
      // No event tells of an issuer (they are not watched, and their kind may not exist).
      schedules: [renderPoll(cluster, "issuer")],
      summary: `held, ${reason}: ${message}`,
    };
  }
  const routesReady = routeTls.kind === "ready" || routeTls.kind === "off";
  // Servers are created only once the Secrets they mount hold certificates.
  const listenersReady = listeners.kind === "ready";
  const rendered = renderWrites(cluster, plan, observed.rendered, routesReady && clientReady && listenersReady);
  const foreign = [
    ...(routeTls.kind === "foreign" ? routeTls.objects : []),
    ...certificates.foreign,
    ...rendered.foreign,
  ];
  const failure =
    rendered.claimsPredating.length > 0
      ? ownMetaGroup(cluster, rendered.claimsPredating)
      : (namedFailure(
          foreign.length > 0 ? `not controlled by this NatsCluster, left untouched: ${foreign.join(", ")}` : undefined,
        ) ?? certificates.failure);
  const created = rendered.writes.flatMap((w) => (w.kind === "create" ? [w.server] : []));

  const parts = [`revision ${plan.revision}`];
  if (created.length > 0) parts.push(`creating ${created.join(", ")}`);
  if (routeTls.kind === "waiting") parts.push(routeTls.message);
  if (listeners.kind === "waiting") parts.push(listeners.message);
  if (!clientReady) parts.push(`Secret ${clientTlsSecretName(cluster) ?? ""} does not hold tls.crt yet`);
  if (certificates.failure) parts.push(certificates.failure.message);
  const refusedRemotes = observed.leafRemotes.refused;
  if (refusedRemotes.length > 0)
    parts.push(`leaf remotes left out: ${refusedRemotes.map((r) => `${r.reason}: ${r.message}`).join("; ")}`);
  if (rendered.claimTerminating.length > 0)
    parts.push(`waiting for the old claim of ${rendered.claimTerminating.join(", ")}`);
  if (foreign.length > 0) parts.push(`foreign: ${foreign.join(", ")}`);
  if (rendered.claimsPredating.length > 0) parts.push(`claims predating it: ${rendered.claimsPredating.join(", ")}`);
  return {
    writes: [...certificates.writes, ...rendered.writes],
    status: renderedStatus(plan.status, routeTls.kind === "ready" ? routeTls.certificate : undefined),
    ...failureDecision(cluster, failure),
    schedules: renderSchedules(cluster, {
      renewed: routeTls.kind === "ready" && routeTls.renewed === true,
      claimWait: rendered.claimTerminating.length > 0 || rendered.claimsPredating.length > 0,
      leafRemotesRefused: refusedRemotes.length > 0,
      // No event tells of the Secret cert-manager writes, or of cert-manager being installed.
      certificateWait: listeners.kind === "waiting" || routeTls.kind === "waiting" || !clientReady,
    }),
    summary: parts.join("; "),
  };
}

/**
 * Servers whose claims an earlier NatsCluster of this name left behind would bring their JetStream
 * state, a meta group of their own, into the supercluster's: they are not created (OwnMetaGroup).
 */
function ownMetaGroup(cluster: Cluster, claims: readonly string[]): RenderFailure {
  const namespace = cluster.metadata.namespace ?? "default";
  return {
    reason: "OwnMetaGroup",
    message:
      `${claims.join(", ")} predate${claims.length === 1 ? "s" : ""} this NatsCluster and may hold a JetStream meta ` +
      `group of their own, which would split the supercluster's; no server is created on them. Delete them ` +
      `(kubectl -n ${namespace} delete pvc ${claims.join(" ")}) to start those servers empty`,
  };
}

/**
 * What a delivery decides first: the route TLS Secrets to issue (phase 1; the render is decided
 * once they are written, from the Secrets as they then stand), or, with none to issue, the render.
 */
export type DeliveryDecision =
  { kind: "issue-route-tls"; order: IssueRouteTls; summary: string } | ({ kind: "render" } & Decision);

export function decideDelivery(observed: Observed, now: Date, options: RenderOptions): DeliveryDecision {
  const order = decideRouteTls(observed, now);
  if (order) return { kind: "issue-route-tls", order, summary: `route TLS to issue: ${order.reason}` };
  return { kind: "render", ...decide(observed, now, options) };
}

/** What one delivery does for the NatsCluster observed (after phase 1), at `now`. */
export function decide(observed: Observed, now: Date, options: RenderOptions = DEFAULT_OPTIONS): Decision {
  return observed.kind === "held" ? decideHold(observed) : decideRender(observed, now, options);
}
