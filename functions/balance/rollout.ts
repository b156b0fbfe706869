// Pausing during the NatsCluster's own rollout (B12): a balancer moves nothing while a NatsCluster
// whose servers it covers is not Settled. The rollout's own gate waits for the same settled state
// between its steps, so balancer moves and server restarts never overlap.
import type { Condition } from "../../shared/kube/conditions.ts";

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
