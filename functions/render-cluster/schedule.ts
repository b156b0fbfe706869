// render-cluster's own wake-ups: one tick when the route certificate is due for renewal
// (a cron naming that minute of that day), a poll while rendering waits (a refused trust, a
// terminating claim), and a poke for
// step-rollout after a renewal.
import { dropSchedule, keepSchedule } from "../../shared/eventing/schedule.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { type Cluster, scheduleName } from "../cluster/index.ts";

export const renewalScheduleName = (cluster: string): string => `${cluster}-routes-renewal`;
export const renderPollName = (cluster: string): string => `${cluster}-render-poll`;

/** What render-cluster waits for, which no event announces, and how often it looks. */
export const RENDER_POLL_CRON = {
  /** A NatsOperatorTrust, NatsAccountTrust or grant that a person has to create. */
  trust: "*/30 * * * * *",
  /** The old claim of a replaced server, which goes once its pod has stopped. */
  claim: "*/10 * * * * *",
} as const;

/** A cron firing once a year at `at` (UTC minute), a minute late so the check finds it due. */
export function yearlyCron(at: Date): string {
  const t = new Date(at.getTime() + 60_000);
  return `${t.getUTCMinutes()} ${t.getUTCHours()} ${t.getUTCDate()} ${t.getUTCMonth() + 1} *`;
}

/** Keeps the renewal tick; writes only when its date moves. */
export async function keepRenewalSchedule(kube: Kube, cluster: Cluster, at: Date): Promise<void> {
  const cron = yearlyCron(at);
  const name = renewalScheduleName(cluster.metadata.name);
  const existing = await kube.get<KubeObject & { spec?: { schedule?: string } }>({
    apiVersion: "sources.knative.dev/v1",
    kind: "PingSource",
    namespace: cluster.metadata.namespace,
    name,
  });
  if (existing?.spec?.schedule === cron) return;
  await keepSchedule(kube, {
    namespace: cluster.metadata.namespace,
    name,
    cron,
    target: "render-cluster",
    work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
    owner: cluster,
  });
}

/** Starts step-rollout's ticks so it notices the new revision; it drops them once at rest. */
export async function pokeRollout(kube: Kube, cluster: Cluster): Promise<void> {
  await keepSchedule(kube, {
    namespace: cluster.metadata.namespace,
    name: scheduleName(cluster.metadata.name),
    cron: "*/10 * * * * *",
    target: "step-rollout",
    work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
    owner: cluster,
  });
}

/**
 * Polls while rendering waits on something no event announces: a refused trust (a NatsOperatorTrust
 * or grant that appears or changes), or the old claim of a replaced server going away.
 */
export async function keepRenderPoll(
  kube: Kube,
  cluster: Cluster,
  waitingFor: keyof typeof RENDER_POLL_CRON,
): Promise<void> {
  await keepSchedule(kube, {
    namespace: cluster.metadata.namespace,
    name: renderPollName(cluster.metadata.name),
    cron: RENDER_POLL_CRON[waitingFor],
    target: "render-cluster",
    work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
    owner: cluster,
  });
}

/** Drops the poll once nothing is waited for (a no-op answer when there is none). */
export async function dropRenderPoll(kube: Kube, cluster: Cluster): Promise<void> {
  await dropSchedule(kube, cluster.metadata.namespace, renderPollName(cluster.metadata.name));
}
