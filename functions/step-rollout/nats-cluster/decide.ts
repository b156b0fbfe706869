// The decision of one step-rollout delivery, from what observe.ts read and the time: pure, so
// the same observation always gives the same decision, and `nats-operator preview` can show a
// change's decision without acting on it.
import {
  CLUSTER_ANNOTATIONS,
  FINALIZERS,
  RENDER_FAILURE_ANNOTATION,
  RESTART_ALL_DISCARD_DATA,
} from "../../../shared/api/index.ts";
import {
  type Condition,
  type ConditionUpdate,
  findCondition,
  hasFinalizer,
  setConditions,
} from "../../../shared/kube/index.ts";
import { isClaimLeftBehind, renderFailureReason } from "../../cluster/index.ts";
import { appliedBy } from "../reload/decision.ts";
import { decideConfigChanges } from "../reload/changes.ts";
import { withConnectivity } from "../servers/connectivity.ts";
import { judgeDeletion } from "../rollout/deletion.ts";
import { judgeMetaJoin, OWN_META_GROUP } from "../rollout/meta-join.ts";
import type { Observed, ClusterEvent, Decision, FinalizeDecision, RolloutStepDecision } from "./types.ts";
import { decideRollout } from "../rollout/state-machine.ts";
import { POD_FAILURE_REASONS } from "../rollout/pod-failure.ts";
import { serverInputs, snapshotOf } from "../rollout/servers.ts";
import { describeLeftovers, leftoversOf, newLeftovers } from "./leftovers.ts";
import { nextStatus } from "./status.ts";
import { whyUnobserved } from "../rollout/snapshot.ts";

function decideFinalize(observed: Observed, now: Date): FinalizeDecision {
  const { cluster } = observed;
  const forceDelete = cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.forceDelete] !== undefined;
  const verdict = judgeDeletion(snapshotOf(observed), forceDelete);
  const conditions = setConditions(cluster.status?.conditions, [verdict.condition], now);
  return {
    kind: "finalize",
    release: verdict.release,
    status: { ...(cluster.status ?? {}), conditions },
    summary: `${verdict.release ? "finalizer released" : "deletion waits"}: ${verdict.condition.message}`,
    poll: !verdict.release,
    watchLinks: false,
  };
}

/**
 * A Warning when Ready turns False for a server's pod (refused, no image, OOM-killed,
 * crash-looping) with a reason it did not show before: once, not every pass.
 */
function podFailureWarning(
  previous: readonly Condition[] | undefined,
  conditions: readonly Condition[] | undefined,
): ClusterEvent[] {
  const ready = findCondition(conditions, "Ready");
  if (ready?.status !== "False" || !POD_FAILURE_REASONS.has(ready.reason)) return [];
  const before = findCondition(previous, "Ready");
  if (before?.status === "False" && before.reason === ready.reason) return [];
  return [{ type: "Warning", reason: ready.reason, note: ready.message }];
}

/**
 * The claims servers' deletions left behind: `Deleting`, the StatefulSet gone, the server's own
 * claim made before the phase began still there and not terminating.
 */
function claimsLeft(observed: Observed): { server: string; uid: string }[] {
  return [...(observed.claims ?? [])].flatMap(([server, claim]) =>
    !observed.statefulSets.has(server) &&
    claim.metadata.uid !== undefined &&
    claim.metadata.deletionTimestamp === undefined &&
    isClaimLeftBehind(observed.cluster, server, claim)
      ? [{ server, uid: claim.metadata.uid }]
      : [],
  );
}

/** The claims of `Deleting` servers, their StatefulSet gone, that are terminating. */
function claimsTerminating(observed: Observed): { server: string; claim: string }[] {
  return [...(observed.claims ?? [])].flatMap(([server, claim]) =>
    !observed.statefulSets.has(server) && claim.metadata.deletionTimestamp !== undefined
      ? [{ server, claim: claim.metadata.name }]
      : [],
  );
}

function decideStep(seen: Observed, now: Date): RolloutStepDecision {
  // Servers that would bring a meta group of their own into a supercluster's stay where they are,
  // as under a refused trust; a refused trust is told first (its plan is no render to judge).
  const metaJoin = seen.hold ? undefined : judgeMetaJoin(seen);
  const observed: Observed = metaJoin ? { ...seen, hold: metaJoin } : seen;
  const { cluster, plan } = observed;
  const annotations = cluster.metadata.annotations ?? {};
  const jetstream = cluster.spec.jetstream !== undefined;
  const withFinalizer = hasFinalizer(cluster, FINALIZERS.jetstreamData);
  const finalizer = jetstream && !withFinalizer ? "add" : !jetstream && withFinalizer ? "remove" : undefined;
  const replaceServer = annotations[CLUSTER_ANNOTATIONS.replaceServer];

  const changes = decideConfigChanges(observed, serverInputs(observed), now);
  const leftovers = leftoversOf(observed);
  const snapshot = snapshotOf(observed);
  const user = observed.systemUser;
  const forceStep = annotations[CLUSTER_ANNOTATIONS.forceStep];
  const renderFailure = annotations[RENDER_FAILURE_ANNOTATION];
  const previous = cluster.status?.rollout;
  const previousProgressing = cluster.status?.conditions?.find((c) => c.type === "Progressing")?.reason;
  const certificateHold = observed.certificatesReady
    ? undefined
    : (observed.certificateWait ?? {
        reason: "RouteCertificateNotReady",
        message: "waiting for the route or client TLS Secret",
      });
  const hold = observed.hold ? { ...observed.hold, refused: true } : certificateHold;
  const rollout = decideRollout({
    cluster: cluster.metadata.name,
    replicas: cluster.spec.replicas,
    targetRevision: plan.revision,
    jetstream,
    canEvacuate: user.kind === "ready",
    ...(user.kind === "unusable" ? { evacuationUnavailable: user.message } : {}),
    servers: changes.servers,
    ...(snapshot
      ? { snapshot }
      : { unobserved: whyUnobserved([...observed.statefulSets.keys()], observed.reports, jetstream) }),
    paused: cluster.spec.rollout?.paused === true,
    ...(hold ? { hold } : {}),
    ...(forceStep ? { forceStep } : {}),
    restartAll: annotations[CLUSTER_ANNOTATIONS.restartAll] !== undefined,
    ephemeralJetStream: jetstream && cluster.spec.jetstream?.volumeClaimTemplate === undefined,
    restartAllDiscardsData: annotations[CLUSTER_ANNOTATIONS.restartAll] === RESTART_ALL_DISCARD_DATA,
    ...(previous?.targetRevision ? { previous: { ...previous, targetRevision: previous.targetRevision } } : {}),
    ...(previousProgressing ? { previousProgressingReason: previousProgressing } : {}),
    ...(cluster.status?.removals ? { previousRemovals: cluster.status.removals } : {}),
    claimsLeft: claimsLeft(observed),
    claimsTerminating: claimsTerminating(observed),
    foreign: observed.foreign,
    leftovers: describeLeftovers(leftovers),
    ...(renderFailure !== undefined
      ? { renderFailure: { message: renderFailure, reason: renderFailureReason(annotations) } }
      : {}),
    now,
  });
  const stepped = nextStatus(
    cluster,
    { ...observed, servers: changes.servers, ...(snapshot ? { snapshot } : {}) },
    rollout,
    now,
    appliedBy(plan.revision, changes.marks),
  );
  const connectivity = withConnectivity(stepped, cluster, observed.leafRemotes, observed.connectivity, now);
  const status = connectivity.status;
  if (leftovers.length > 0) status.leftovers = leftovers;
  else delete status.leftovers;
  // A gateway in clear renders nothing (C47): the cluster is not Ready for what was asked of it.
  if (seen.hold?.reason === "GatewayWithoutTLS") {
    const refused: ConditionUpdate = {
      type: "Ready",
      status: "False",
      reason: seen.hold.reason,
      message: seen.hold.message,
      observedGeneration: cluster.metadata.generation ?? 0,
    };
    status.conditions = setConditions(status.conditions, [refused], now);
  }

  const events: ClusterEvent[] = [...podFailureWarning(cluster.status?.conditions, status.conditions)];
  if (metaJoin?.reason === OWN_META_GROUP && previousProgressing !== OWN_META_GROUP)
    events.push({ type: "Warning", reason: OWN_META_GROUP, note: metaJoin.message });
  const found = newLeftovers(cluster.status?.leftovers, leftovers);
  if (found.length > 0)
    events.push({
      type: "Warning",
      reason: "ReconcileFailed",
      note: `left behind by removed servers and not deleted (not theirs to delete): ${describeLeftovers(found).join(", ")}`,
    });
  if (rollout.stepEvent) events.push({ type: "Normal", reason: "RolloutStep", note: rollout.stepEvent });
  if (rollout.gateBlockedEvent) events.push({ type: "Warning", reason: "GateBlocked", note: rollout.gateBlockedEvent });
  const clear = [
    ...(rollout.clearForceStep ? [CLUSTER_ANNOTATIONS.forceStep] : []),
    ...(rollout.clearRestartAll ? [CLUSTER_ANNOTATIONS.restartAll] : []),
  ];
  const step = rollout.step;
  const progressing = rollout.conditions.find((c) => c.type === "Progressing");
  const said =
    step.kind === "none"
      ? `${progressing?.reason ?? ""}: ${progressing?.message ?? ""}`
      : (rollout.stepEvent ?? `${step.kind} again`);
  const reloads = changes.pending.map((p) => `${p.server}: ${p.detail}`).join("; ");
  const watching = !observed.hold && observed.statefulSets.size > 0;
  const poll = rollout.polling || (!connectivity.settled && watching);
  const requested = replaceServer !== undefined && observed.statefulSets.has(replaceServer) ? replaceServer : undefined;
  return {
    kind: "rollout",
    ...(finalizer ? { finalizer } : {}),
    ...(replaceServer !== undefined ? { replaceRequest: requested ? { server: requested } : {} } : {}),
    status,
    reloads: changes.reloads,
    step,
    events,
    clear,
    // Peers coming up send no event; while held or with no server yet, there is nothing to watch.
    poll,
    // Nor do links going down: a cluster at rest with links is looked at again, more slowly.
    watchLinks: !poll && watching && hasLinks(cluster),
    servers: changes.servers,
    rollout,
    pendingReloads: changes.pending,
    summary: reloads ? `${said} (reload pending: ${reloads})` : said,
  };
}

/** Whether the cluster holds links to other NATS clusters: a gateway, or leaf remotes. */
function hasLinks(cluster: Observed["cluster"]): boolean {
  return cluster.spec.gateway !== undefined || (cluster.spec.leafRemotes ?? []).length > 0;
}

/** What one delivery does for the NatsCluster observed, at `now`. */
export function decide(observed: Observed, now: Date): Decision {
  return observed.cluster.metadata.deletionTimestamp ? decideFinalize(observed, now) : decideStep(observed, now);
}
