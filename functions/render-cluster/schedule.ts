// render-cluster's own wake-ups: one tick when the route certificate is due for renewal
// (a cron naming that minute of that day), a poll while the trust is refused, and a poke for
// step-rollout after a renewal.
import { dropSchedule, keepSchedule } from "../../shared/eventing/schedule.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import type { Cluster } from "../cluster-shared/cluster.ts";
import { scheduleName } from "../cluster-shared/names.ts";

export const renewalScheduleName = (cluster: string): string => `${cluster}-routes-renewal`;
export const trustPollName = (cluster: string): string => `${cluster}-trust-poll`;
export const TRUST_POLL_CRON = "*/30 * * * * *";

/** A cron firing once a year at `at` (UTC minute), a minute late so the check finds it due. */
export function yearlyCron(at: Date): string {
  const t = new Date(at.getTime() + 60_000);
  return `${t.getUTCMinutes()} ${t.getUTCHours()} ${t.getUTCDate()} ${t.getUTCMonth() + 1} *`;
}

/** Keeps the renewal tick; writes only when its date moves. */
export async function keepRenewalSchedule(kube: Kube, cluster: Cluster, at: Date): Promise<void> {
  const cron = yearlyCron(at);
  const name = renewalScheduleName(cluster.metadata.name);
  const existing = await kube.get<KubeObject & { spec?: { schedule?: string } }>({ apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace: cluster.metadata.namespace, name });
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
 * Polls while the trust is refused: no event tells render-cluster that a NatsOperatorTrust or
 * a grant appeared or changed, so it looks again every 30 s until the trust is ready.
 */
export async function keepTrustPoll(kube: Kube, cluster: Cluster): Promise<void> {
  await keepSchedule(kube, {
    namespace: cluster.metadata.namespace,
    name: trustPollName(cluster.metadata.name),
    cron: TRUST_POLL_CRON,
    target: "render-cluster",
    work: { namespace: cluster.metadata.namespace, cluster: cluster.metadata.name },
    owner: cluster,
  });
}

/** Drops the poll once the cluster renders (a no-op answer when there is none). */
export async function dropTrustPoll(kube: Kube, cluster: Cluster): Promise<void> {
  await dropSchedule(kube, cluster.metadata.namespace, trustPollName(cluster.metadata.name));
}
