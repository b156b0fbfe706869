// The NatsClusters a trust event concerns: those whose `spec.auth` names the changed
// NatsOperatorTrust or NatsAccountTrust. A trust feeds the rendered config, so its change is a
// new revision for each of them.
import type { Kube } from "../../shared/kube/client.ts";
import type { ObjectRef } from "../../shared/runtime/event.ts";
import { qualifiedKind } from "../../shared/runtime/function.ts";
import { done, type Outcome, skipped, withSchedules } from "../../shared/runtime/outcome.ts";
import type { ScheduleDecision } from "../../shared/runtime/schedule.ts";
import { KINDS } from "../../shared/api/kinds.ts";
import { asCluster, type Cluster, CLUSTER_API_VERSION, CLUSTER_KIND, rolloutPoll } from "../cluster/index.ts";

export const TRUST_KINDS = [KINDS.NatsOperatorTrust, KINDS.NatsAccountTrust].map((k) =>
  qualifiedKind(k.apiVersion, k.kind),
);

export const isTrustRef = (ref: ObjectRef): boolean => TRUST_KINDS.includes(qualifiedKind(ref.apiVersion, ref.kind));

/** Whether the cluster's auth names the trust (pure); an omitted namespace is the cluster's own. */
export function namesTrust(cluster: Cluster, trust: ObjectRef): boolean {
  const auth = cluster.spec.auth;
  if (!auth) return false;
  const same = (ref: { name: string; namespace?: string }) =>
    ref.name === trust.name && (ref.namespace ?? cluster.metadata.namespace) === trust.namespace;
  if (trust.kind === KINDS.NatsOperatorTrust.kind) return same(auth.trustRef);
  return (auth.accountTrustRefs ?? []).some(same);
}

/** Every NatsCluster, in any namespace (a grant can admit it from anywhere), naming the trust. */
export async function clustersNaming(kube: Kube, trust: ObjectRef): Promise<Cluster[]> {
  const all = await kube.list({ apiVersion: CLUSTER_API_VERSION, kind: CLUSTER_KIND });
  return all
    .map(asCluster)
    .filter((c): c is Cluster => c !== undefined && !c.metadata.deletionTimestamp && namesTrust(c, trust));
}

/**
 * A trust changed: every NatsCluster naming it is rendered again (by `render`), and step-rollout is
 * poked, since at rest it has no tick that would notice the new revision (C31 rolls it out).
 */
export async function renderReferrers(
  kube: Kube,
  trust: ObjectRef,
  render: (cluster: Cluster) => Promise<Outcome>,
): Promise<Outcome> {
  const clusters = await clustersNaming(kube, trust);
  if (clusters.length === 0) return skipped(`no NatsCluster names ${trust.kind} ${trust.namespace}/${trust.name}`);
  const rendered: string[] = [];
  const schedules: ScheduleDecision[][] = [];
  for (const cluster of clusters) {
    const outcome = await render(cluster);
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
