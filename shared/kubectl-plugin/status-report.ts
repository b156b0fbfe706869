// What `kubectl nats-operator status` shows for a NatsCluster, a NatsStream and a NatsAccount: pure
// reads of the object's status (what the operator last observed), and their text form.
import type { ResourceOf } from "../api/index.ts";
import type { Condition } from "../kube/conditions.ts";
import { formatFields, formatTable } from "./table.ts";

type Status<K extends "NatsCluster" | "NatsStream" | "NatsAccount"> = NonNullable<ResourceOf<K>["status"]>;
type Named = { metadata: { name?: string; namespace?: string } };

export interface ConditionRow {
  type: string;
  status: string;
  reason: string;
  message: string;
  since?: string;
}

export interface ClusterStatusReport {
  kind: "NatsCluster";
  namespace: string;
  name: string;
  /** The version every planned server runs; absent while they differ. */
  version?: string;
  ready: { servers: number; planned: number };
  servers: { name: string; version?: string; ready: boolean; configRevision?: string }[];
  config?: { revision?: string; appliedBy?: string; restartReason?: string };
  rollout?: {
    targetRevision?: string;
    updated: string[];
    current?: string;
    pending: string[];
    gate?: { waitingFor?: string; since?: string };
  };
  removals: { name: string; phase: string; since?: string }[];
  /** Why a rollout moves or waits: the Progressing condition. */
  progressing?: ConditionRow;
  conditions: ConditionRow[];
}

export interface StreamStatusReport {
  kind: "NatsStream";
  namespace: string;
  name: string;
  leader?: string;
  /** The leader first, then the followers the server reports. */
  replicas: { name: string; role: "leader" | "follower"; current?: boolean; lag?: number }[];
  messages?: number;
  lastSyncedTime?: string;
  conditions: ConditionRow[];
}

export interface AccountStatusReport {
  kind: "NatsAccount";
  namespace: string;
  name: string;
  publicKey?: string;
  distribution: { current: number; servers: number; lastPushTime?: string };
  conditions: ConditionRow[];
}

export type StatusReport = ClusterStatusReport | StreamStatusReport | AccountStatusReport;

function conditionRows(conditions: readonly Condition[] | undefined): ConditionRow[] {
  return (conditions ?? []).map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    ...(c.lastTransitionTime ? { since: c.lastTransitionTime } : {}),
  }));
}

const whereIs = (object: Named) => ({ namespace: object.metadata.namespace ?? "", name: object.metadata.name ?? "" });

export function clusterReport(cluster: Named & { status?: Status<"NatsCluster"> }): ClusterStatusReport {
  const status = cluster.status ?? {};
  const conditions = conditionRows(status.conditions as Condition[] | undefined);
  const servers = (status.servers ?? []).map((s) => ({
    name: s.name,
    ...(s.version ? { version: s.version } : {}),
    ready: s.ready === true,
    ...(s.configRevision ? { configRevision: s.configRevision } : {}),
  }));
  const rollout = status.rollout;
  const progressing = conditions.find((c) => c.type === "Progressing");
  return {
    kind: "NatsCluster",
    ...whereIs(cluster),
    ...(status.version ? { version: status.version } : {}),
    ready: {
      servers: status.readyReplicas ?? servers.filter((s) => s.ready).length,
      planned: status.replicas ?? servers.length,
    },
    servers,
    ...(status.config ? { config: { ...status.config } } : {}),
    ...(rollout
      ? {
          rollout: {
            ...(rollout.targetRevision ? { targetRevision: rollout.targetRevision } : {}),
            updated: [...(rollout.updated ?? [])],
            ...(rollout.current ? { current: rollout.current } : {}),
            pending: [...(rollout.pending ?? [])],
            ...(rollout.gate ? { gate: { ...rollout.gate } } : {}),
          },
        }
      : {}),
    removals: (status.removals ?? []).map((r) => ({
      name: r.name,
      phase: r.phase,
      ...(r.since ? { since: r.since } : {}),
    })),
    ...(progressing ? { progressing } : {}),
    conditions,
  };
}

export function streamReport(stream: Named & { status?: Status<"NatsStream"> }): StreamStatusReport {
  const status = stream.status ?? {};
  const server = status.server;
  const leader = server?.leader || undefined;
  return {
    kind: "NatsStream",
    ...whereIs(stream),
    ...(leader ? { leader } : {}),
    replicas: [
      ...(leader ? [{ name: leader, role: "leader" as const, current: true }] : []),
      ...(server?.replicas ?? []).map((r) => ({
        name: r.name,
        role: "follower" as const,
        ...(r.current !== undefined ? { current: r.current } : {}),
        ...(r.lag !== undefined ? { lag: r.lag } : {}),
      })),
    ],
    ...(server?.messages !== undefined ? { messages: server.messages } : {}),
    ...(status.lastSyncedTime ? { lastSyncedTime: status.lastSyncedTime } : {}),
    conditions: conditionRows(status.conditions as Condition[] | undefined),
  };
}

export function accountReport(account: Named & { status?: Status<"NatsAccount"> }): AccountStatusReport {
  const status = account.status ?? {};
  const distribution = status.distribution ?? {};
  return {
    kind: "NatsAccount",
    ...whereIs(account),
    ...(status.publicKey ? { publicKey: status.publicKey } : {}),
    distribution: {
      current: distribution.current ?? 0,
      servers: distribution.servers ?? 0,
      ...(distribution.lastPushTime ? { lastPushTime: distribution.lastPushTime } : {}),
    },
    conditions: conditionRows(status.conditions as Condition[] | undefined),
  };
}

const list = (names: readonly string[]) => (names.length > 0 ? names.join(", ") : "none");

function conditionsTable(conditions: readonly ConditionRow[]): string {
  if (conditions.length === 0) return "\nNo conditions yet: the operator has not reported on it.\n";
  return `\n${formatTable([
    ["CONDITION", "STATUS", "REASON", "SINCE", "MESSAGE"],
    ...conditions.map((c) => [c.type, c.status, c.reason, c.since ?? "", c.message]),
  ])}`;
}

function formatCluster(r: ClusterStatusReport): string {
  const gate = r.rollout?.gate;
  const head = formatFields([
    ["NatsCluster", `${r.namespace}/${r.name}`],
    ["Version", r.version ?? "mixed (servers differ)"],
    ["Ready", `${r.ready.servers}/${r.ready.planned} servers`],
    [
      "Config",
      r.config?.revision
        ? `${r.config.revision}${r.config.appliedBy ? ` (${r.config.appliedBy}${r.config.restartReason ? `: ${r.config.restartReason}` : ""})` : ""}`
        : undefined,
    ],
    [
      "Progressing",
      r.progressing ? `${r.progressing.status} ${r.progressing.reason}: ${r.progressing.message}` : undefined,
    ],
    [
      "Rollout",
      r.rollout
        ? `target ${r.rollout.targetRevision ?? "?"}; updated ${list(r.rollout.updated)}; current ${r.rollout.current ?? "none"}; pending ${list(r.rollout.pending)}`
        : undefined,
    ],
    [
      "Gate",
      gate?.waitingFor ? `waiting for ${gate.waitingFor}${gate.since ? ` since ${gate.since}` : ""}` : undefined,
    ],
    [
      "Removals",
      r.removals.length > 0
        ? r.removals.map((x) => `${x.name} ${x.phase}${x.since ? ` since ${x.since}` : ""}`).join("; ")
        : undefined,
    ],
  ]);
  const servers =
    r.servers.length === 0
      ? "\nNo servers reported yet.\n"
      : `\n${formatTable([
          ["SERVER", "VERSION", "READY", "CONFIG REVISION"],
          ...r.servers.map((s) => [s.name, s.version ?? "", String(s.ready), s.configRevision ?? ""]),
        ])}`;
  return head + servers + conditionsTable(r.conditions);
}

function formatStream(r: StreamStatusReport): string {
  const head = formatFields([
    ["NatsStream", `${r.namespace}/${r.name}`],
    ["Leader", r.leader ?? "none reported"],
    ["Messages", r.messages === undefined ? undefined : String(r.messages)],
    ["Last synced", r.lastSyncedTime],
  ]);
  const replicas =
    r.replicas.length === 0
      ? "\nNo replicas reported yet.\n"
      : `\n${formatTable([
          ["REPLICA", "ROLE", "CURRENT", "LAG"],
          ...r.replicas.map((x) => [
            x.name,
            x.role,
            x.current === undefined ? "" : String(x.current),
            x.lag === undefined ? "" : String(x.lag),
          ]),
        ])}`;
  return head + replicas + conditionsTable(r.conditions);
}

function formatAccount(r: AccountStatusReport): string {
  return (
    formatFields([
      ["NatsAccount", `${r.namespace}/${r.name}`],
      ["Public key", r.publicKey],
      ["Distribution", `${r.distribution.current}/${r.distribution.servers} servers hold the current JWT`],
      ["Last push", r.distribution.lastPushTime],
    ]) + conditionsTable(r.conditions)
  );
}

/** The report as aligned text, as `status` prints it without `-o json`. */
export function formatStatus(report: StatusReport): string {
  switch (report.kind) {
    case "NatsCluster":
      return formatCluster(report);
    case "NatsStream":
      return formatStream(report);
    case "NatsAccount":
      return formatAccount(report);
  }
}
