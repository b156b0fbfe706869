// Before the rollout plans its one step, every server off the target revision is told how it
// takes its new config, and every reload is carried a step further, all of them in this
// delivery (reloads are not rollout steps: no gate, not one at a time). What comes back is the
// servers as the rollout planner must see them: reloaded ones on target, pending ones aside,
// failed ones restarts.
import { RENDERED_ANNOTATIONS } from "../../shared/api/constants/annotations.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { type Cluster, configMapName } from "../cluster/index.ts";
import { decideConfigApply, type ConfigMapMarks, type SystemUserState } from "./config-apply.ts";
import type { ClusterObservation } from "./observe.ts";
import type { ServerInput } from "./plan.ts";
import { carryReload, type ReloadOutcome } from "./reload.ts";
import { NO_RELOAD } from "./restart-reason.ts";
import { systemConnection, type SystemUser } from "./system-user.ts";

export interface AppliedConfig {
  servers: ServerInput[];
  /** Each existing planned server's ConfigMap marks as this delivery leaves them. */
  marks: (ConfigMapMarks | undefined)[];
  /** Servers whose reload is not confirmed yet, with why. */
  pending: { server: string; detail: string }[];
}

function marksOf(seen: ClusterObservation, server: string): ConfigMapMarks | undefined {
  const annotations = seen.configMaps.get(configMapName(server))?.metadata.annotations;
  if (!annotations) return undefined;
  const pick = (key: string) => annotations[key];
  const marks: ConfigMapMarks = {};
  const revision = pick(RENDERED_ANNOTATIONS.configRevision);
  const apply = pick(RENDERED_ANNOTATIONS.configApply);
  const reason = pick(RENDERED_ANNOTATIONS.restartReason);
  const since = pick(RENDERED_ANNOTATIONS.reloadSince);
  if (revision !== undefined) marks.revision = revision;
  if (apply !== undefined) marks.apply = apply;
  if (reason !== undefined) marks.restartReason = reason;
  if (since !== undefined) marks.reloadSince = since;
  return marks;
}

const userState = (user: SystemUser): SystemUserState =>
  user.kind === "unusable" ? { kind: "unusable", message: user.message } : { kind: user.kind };

export async function applyConfigChanges(
  kube: Kube,
  cluster: Cluster,
  seen: ClusterObservation,
  user: SystemUser,
  now: Date,
): Promise<AppliedConfig> {
  const target = seen.plan.revision;
  // A refused trust or a missing certificate holds reloads as it holds the rollout.
  const held = seen.hold !== undefined || !seen.certificatesReady;
  const connect = () =>
    user.kind === "ready" ? systemConnection(cluster, user) : Promise.reject(new Error("no system user"));
  // While servers are leaving, the others keep their routes to them: evacuation copies data
  // over those routes. Their shorter route lists are reloaded once the leaving servers are gone.
  const leaving = seen.servers.some((s) => s.exists && (!s.planned || s.replace === true));
  const pending: AppliedConfig["pending"] = [];
  const results = await Promise.all(
    seen.servers.map(async (server): Promise<{ server: ServerInput; marks?: ConfigMapMarks }> => {
      const marks = marksOf(seen, server.name);
      const planned = seen.plan.servers.find((p) => p.name === server.name);
      const statefulSet = seen.statefulSets.get(server.name);
      const configMap = seen.configMaps.get(configMapName(server.name));
      const keep = { server, ...(marks ? { marks } : {}) };
      if (held || !planned || !statefulSet || server.onTarget) return keep;
      const decision = decideConfigApply({
        target,
        specMatches: statefulSet.metadata.annotations?.[RENDERED_ANNOTATIONS.specDigest] === planned.specDigest,
        restartReason: server.restartReason ?? NO_RELOAD,
        ...(marks ? { configMap: marks } : {}),
        ...(server.reportedRevision ? { reportedRevision: server.reportedRevision } : {}),
        systemUser: userState(user),
        now,
      });
      const { restartReason: _reason, ...rest } = server;
      if (decision.kind === "restart") return { ...keep, server: { ...rest, restartReason: decision.reason } };
      if (decision.kind === "start-reload" && leaving) {
        pending.push({ server: server.name, detail: "waits until the leaving servers are gone" });
        return { ...keep, server: { ...rest, reloading: true } };
      }
      // Every reload kind needs the ConfigMap; without one the decision is already a restart.
      if (!configMap) return keep;
      const report = seen.reports.find((r) => r.server === server.name);
      const serverId = report?.varz?.server_name === server.name ? report.varz.server_id : undefined;
      const outcome: ReloadOutcome = await carryReload(
        kube,
        connect,
        target,
        { planned, configMap, statefulSet, ...(serverId ? { serverId } : {}) },
        decision,
        now,
      );
      switch (outcome.kind) {
        case "confirmed":
          return {
            server: { ...rest, onTarget: true, reportedRevision: target },
            marks: { revision: target, apply: "Reload" },
          };
        case "failed":
          return {
            server: { ...rest, restartReason: outcome.reason },
            marks: { revision: target, apply: "Restart", restartReason: outcome.reason },
          };
        case "pending":
          pending.push({ server: server.name, detail: outcome.detail });
          return {
            server: { ...rest, reloading: true },
            marks: decision.kind === "start-reload" ? { revision: target, apply: "Reload" } : (marks ?? {}),
          };
      }
    }),
  );
  const servers = results.map((r) => r.server);
  const marks = results.filter((r) => r.server.planned && r.server.exists).map((r) => r.marks);
  return { servers, marks, pending };
}
