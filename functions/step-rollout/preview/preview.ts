// `nats-operator preview`: what a change to a NatsCluster would do, from the live cluster
// observed now and the decision made on the proposed spec, without acting on it.
import type { Kube } from "../../../shared/kube/index.ts";
import { type Cluster, readCluster } from "../../cluster/index.ts";
import { decide } from "../nats-cluster/decide.ts";
import { META_UNOBSERVED, OWN_META_GROUP } from "../rollout/meta-join.ts";
import { observeCluster } from "../nats-cluster/observe.ts";
import type { MonitorAddress } from "../servers/monitor.ts";
import type { Reason } from "../../../shared/api/index.ts";

export interface PreviewReport {
  cluster: string;
  /** The revision the servers are on now, and the one the proposed spec renders. */
  revision: { current?: string; proposed: string };
  /** Servers that would take the change by $SYS reload, without restarting. */
  reloads: string[];
  /** Servers that would restart, in order; `atOnce` for a restart-all. */
  restarts: { order: string[]; atOnce: boolean; reason?: string };
  /** Servers that would leave (scale-down) or be replaced, in order. */
  removals: string[];
  /** The step the next delivery would take now, or why it would wait. */
  next: string;
  /** Set when a hold would stop the rollout (AuthChangeBlocked, ScaleDownBlocked, paused, a refused trust, OwnMetaGroup). */
  blocked?: { reason: string; message: string };
  progressing: { status: string; reason: string; message: string };
  metaLeader?: string;
}

/** The live object with the proposed spec (and annotations, when the proposal has some). */
export function proposedCluster(live: Cluster | undefined, proposal: Cluster): Cluster {
  if (!live) return proposal;
  const annotations = proposal.metadata.annotations ?? live.metadata.annotations;
  return {
    ...live,
    metadata: {
      ...live.metadata,
      ...(annotations ? { annotations } : {}),
      generation: (live.metadata.generation ?? 0) + 1,
    },
    spec: proposal.spec,
  };
}

const HOLDS: ReadonlySet<string> = new Set<Reason>([
  "AuthChangeBlocked",
  "EphemeralRestartAllBlocked",
  "ScaleDownBlocked",
  "ReplacementBlocked",
  "RolloutPaused",
  "GateBlocked",
  OWN_META_GROUP,
  META_UNOBSERVED,
]);

/**
 * Observes the live cluster and decides on `proposal` (or on the live spec when none). `address`
 * gives each server's monitoring base URL (the in-cluster name by default).
 */
export async function previewChange(
  kube: Kube,
  target: { namespace: string; name: string },
  proposal: Cluster | undefined,
  now: Date,
  address?: MonitorAddress,
): Promise<PreviewReport> {
  const live = await readCluster(kube, target.namespace, target.name);
  if (!live && !proposal) throw new Error(`NatsCluster ${target.namespace}/${target.name} not found`);
  const cluster = proposal ? proposedCluster(live, proposal) : (live as Cluster);
  const observed = await observeCluster(kube, cluster, address, now);
  const decision = decide(observed, now);
  if (decision.kind === "finalize") throw new Error(`NatsCluster ${target.namespace}/${target.name} is being deleted`);
  const { servers, step } = decision;
  const { rollout: progress, conditions, stepEvent } = decision.rollout;
  const restartNames = new Set(
    servers
      .filter((s) => s.planned && s.exists && !s.onTarget && s.replace !== true && s.reloading !== true)
      .map((s) => s.name),
  );
  const leaving = new Set(servers.filter((s) => s.exists && (!s.planned || s.replace === true)).map((s) => s.name));
  const ordered = [
    ...(step.kind !== "none" && step.kind !== "restart-all" ? [step.server] : []),
    ...(progress?.current !== undefined ? [progress.current] : []),
    ...(progress?.pending ?? []),
  ].filter((name, index, all) => all.indexOf(name) === index);
  const progressing = conditions.find((c) => c.type === "Progressing");
  const reason = decision.status.config?.restartReason;
  return {
    cluster: `${target.namespace}/${target.name}`,
    revision: {
      ...(live?.status?.config?.revision ? { current: live.status.config.revision } : {}),
      proposed: observed.plan.revision,
    },
    reloads: decision.pendingReloads.map((p) => p.server),
    restarts: {
      order: step.kind === "restart-all" ? step.servers : ordered.filter((s) => restartNames.has(s)),
      atOnce: step.kind === "restart-all",
      ...(reason ? { reason } : {}),
    },
    removals: ordered.filter((s) => leaving.has(s)),
    next: step.kind === "none" ? "no step now" : (stepEvent ?? `${step.kind} ${"server" in step ? step.server : ""}`),
    ...(progressing && (HOLDS.has(progressing.reason) || observed.hold)
      ? { blocked: { reason: progressing.reason, message: progressing.message } }
      : {}),
    progressing: {
      status: progressing?.status ?? "Unknown",
      reason: progressing?.reason ?? "",
      message: progressing?.message ?? "",
    },
    ...(decision.status.jetstream?.metaLeader ? { metaLeader: decision.status.jetstream.metaLeader } : {}),
  };
}

/** The report as a person reads it. */
export function formatPreview(report: PreviewReport): string {
  const lines = [`NatsCluster ${report.cluster}`];
  const { current, proposed } = report.revision;
  lines.push(
    current === proposed
      ? `  revision ${proposed}: no config change`
      : `  revision ${current ?? "(none)"} -> ${proposed}`,
  );
  if (report.reloads.length > 0) lines.push(`  reload (no restart): ${report.reloads.join(", ")}`);
  if (report.restarts.order.length > 0) {
    const how = report.restarts.atOnce ? "restart all at once" : "restart one at a time";
    lines.push(`  ${how}: ${report.restarts.order.join(", ")}`);
    if (report.restarts.reason) lines.push(`    restartReason: ${report.restarts.reason}`);
  }
  if (report.removals.length > 0) lines.push(`  remove or replace, one at a time: ${report.removals.join(", ")}`);
  if (report.metaLeader) lines.push(`  meta leader: ${report.metaLeader} (its server goes last)`);
  if (report.blocked) lines.push(`  blocked: ${report.blocked.reason}: ${report.blocked.message}`);
  lines.push(`  next step: ${report.next}`);
  const p = report.progressing;
  lines.push(`  Progressing=${p.status} ${p.reason}: ${p.message}`);
  return `${lines.join("\n")}\n`;
}
