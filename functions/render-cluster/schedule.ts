// render-cluster's own wake-ups, as decisions the runtime carries out: a poll while rendering
// waits (a refused trust, a terminating claim). step-rollout's tick after a renewal is `rolloutPoll`
// of the cluster domain. A route certificate falling due needs no schedule of its own: the status
// says when (`routeCertificate.renewAt`), and the resync tick after that time delivers the
// NatsCluster (`routeCertificateDue`).
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";
import { keepPolling, type Poll, type ScheduleDecision, stopPolling } from "../../shared/runtime/index.ts";
import { type Cluster, rolloutPoll } from "../cluster/index.ts";

export const renderPollName = (cluster: string): string => `${cluster}-render-poll`;

/** What render-cluster waits for, which no event announces, and how often it looks. */
export const RENDER_POLL = {
  /** A NatsOperatorTrust, NatsAccountTrust or grant that a person has to create. */
  trust: { every: "30s" },
  /** The old claim of a replaced server, which goes once its pod has stopped. */
  claim: { every: "10s" },
  /** A leaf remote's NatsConnection, grant or Secret that is missing or unreadable. */
  leafRemote: { every: "30s" },
  /** A listener's TLS Secret that does not hold its certificate yet (no event tells of Secrets). */
  certificate: { every: "10s" },
  /** A cert-manager Issuer or ClusterIssuer that a person has to create (issuers are not watched). */
  issuer: { every: "30s" },
} as const satisfies Record<string, Poll>;

const ownSchedule = (cluster: Cluster, name: string) =>
  ({
    namespace: cluster.metadata.namespace,
    name,
    target: "render-cluster",
    work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
    scope: { kind: "object", owner: cluster },
  }) as const;

/**
 * The poll while rendering waits on something no event announces: a refused trust (a
 * NatsOperatorTrust or grant that appears or changes), or the old claim of a replaced server going
 * away; or no poll, once nothing is waited for.
 */
export function renderPoll(cluster: Cluster, waitingFor: keyof typeof RENDER_POLL | "nothing"): ScheduleDecision {
  const name = renderPollName(cluster.metadata.name);
  if (waitingFor === "nothing") return stopPolling({ namespace: cluster.metadata.namespace, name });
  return keepPolling(ownSchedule(cluster, name), RENDER_POLL[waitingFor]);
}

/** No tick of render-cluster's for a NatsCluster that is gone or going (its owner reference would end them later). */
export function noRenderTicks(namespace: string, cluster: string): ScheduleDecision[] {
  return [stopPolling({ namespace, name: renderPollName(cluster) })];
}

/** What a render came to, as far as its schedules go. */
export interface RenderWaits {
  /** The route certificate was renewed in this delivery: a new revision to roll out. */
  renewed: boolean;
  /** A server waits for a claim to go: a replaced server's old one, or one predating the NatsCluster. */
  claimWait: boolean;
  /** A leaf remote is left out until its NatsConnection can be read. */
  leafRemotesRefused?: boolean;
  /** Servers wait for a listener or route certificate (a Secret someone else writes). */
  certificateWait?: boolean;
}

/** The schedules a render asks for (a held render asks for the trust poll alone). */
export function renderSchedules(cluster: Cluster, waits: RenderWaits): ScheduleDecision[] {
  const schedules: ScheduleDecision[] = [];
  // step-rollout at rest has no tick that would notice the renewed certificate's revision.
  if (waits.renewed) schedules.push(rolloutPoll(cluster, true));
  // No event says that a claim is gone.
  if (waits.claimWait) schedules.push(renderPoll(cluster, "claim"));
  // No event says that a Secret, a NatsConnection or its grant appeared.
  else if (waits.certificateWait) schedules.push(renderPoll(cluster, "certificate"));
  else if (waits.leafRemotesRefused) schedules.push(renderPoll(cluster, "leafRemote"));
  // Otherwise a poll can exist only under auth, with leaf remotes or listener TLS, when auth
  // went away while the trust was refused (its reason may since have given way to a failed
  // delivery's), or while a server is being replaced; elsewhere it is not named, which saves
  // every render of a plain cluster a DELETE that would find nothing.
  else if (
    cluster.spec.auth ||
    cluster.spec.leafRemotes !== undefined ||
    cluster.spec.tls !== undefined ||
    cluster.spec.routes?.tls?.certManager !== undefined ||
    cluster.spec.routes?.tls?.secretRef !== undefined ||
    cluster.spec.gateway?.tls !== undefined ||
    cluster.spec.leafnodes?.tls !== undefined ||
    cluster.metadata.annotations?.[RENDER_FAILURE_REASON_ANNOTATION] !== undefined ||
    cluster.metadata.annotations?.[RENDER_FAILURE_ANNOTATION] !== undefined ||
    cluster.status?.removals !== undefined
  ) {
    schedules.push(renderPoll(cluster, "nothing"));
  }
  return schedules;
}
