// Pausing during the NatsCluster's own rollout (B12): a balancer moves nothing while a NatsCluster
// whose servers it covers is not Settled. The rollout's own gate waits for the same settled state
// between its steps, so balancer moves and server restarts never overlap.
//
// Server names repeat across namespaces (every team's `nats` has a `nats-0`), so only NatsClusters
// in a namespace the balancer names count: its own, its NatsConnection's, and those its server URLs
// carry. A NatsCluster in any other namespace cannot pause it.
import type { Condition } from "../../../shared/kube/index.ts";

/** A NatsCluster as the balancer reads it: its servers and its Settled condition. */
export interface CoveredCluster {
  namespace: string;
  name: string;
  servers: string[];
  settled?: Condition;
}

/** Why the NatsCluster behind `roster` holds the balancer, or undefined when none does. */
export function rolloutHold(clusters: readonly CoveredCluster[], roster: readonly string[]): string | undefined {
  const held = clusters.find(
    (c) => c.settled && c.settled.status !== "True" && c.servers.some((s) => roster.includes(s)),
  );
  if (!held?.settled) return undefined;
  const why = held.settled.message ? `: ${held.settled.message}` : "";
  return `NatsCluster ${held.namespace}/${held.name} is not Settled (${held.settled.reason})${why}`;
}

/** The namespace an in-cluster DNS name carries (`svc.ns`, `svc.ns.svc`, `pod.svc.ns.svc.cluster.local`), if any. */
function namespaceOfHost(host: string): string | undefined {
  const labels = host.toLowerCase().split(".");
  const svc = labels.indexOf("svc");
  if (svc >= 2) return labels[svc - 1];
  if (labels.length === 2 && !/^\d+$/.test(labels[1] ?? "")) return labels[1];
  return undefined;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url.includes("://") ? url : `nats://${url}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** The namespaces whose NatsClusters may pause a balancer: its own, its connection's, and those its connection's URLs name. */
export function namespacesNamed(
  balancerNamespace: string,
  connection: { metadata: { namespace?: string }; spec: { servers: readonly string[] } },
): Set<string> {
  const named = connection.spec.servers.flatMap((url) => {
    const host = hostOf(url);
    const namespace = host ? namespaceOfHost(host) : undefined;
    return namespace ? [namespace] : [];
  });
  return new Set([balancerNamespace, connection.metadata.namespace ?? balancerNamespace, ...named]);
}
