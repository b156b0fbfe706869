// How every server off the target revision takes its new config, decided for all of them at
// once (reloads are not rollout steps: no gate, not one at a time), and the servers as the
// rollout planner must then see them: reloaded ones on target, reloading ones aside, the rest
// restarts with their reason. Pure: the reload requests themselves are sent by act.ts.
import { RENDERED_ANNOTATIONS } from "../../../shared/api/index.ts";
import { configMapName } from "../../cluster/index.ts";
import { decideConfigApply, type ConfigMapMarks, type SystemUserState } from "./decision.ts";
import type { Observed } from "../nats-cluster/types.ts";
import type { ServerInput } from "../rollout/types.ts";
import type { ReloadStep } from "./carry.ts";
import { NO_RELOAD } from "./restart-reason.ts";
import type { SystemUser } from "../servers/types.ts";

/** One reload carried a step further by act.ts. */
export interface ReloadAction {
  server: string;
  step: ReloadStep;
}

export interface ConfigChanges {
  servers: ServerInput[];
  /** Each existing planned server's ConfigMap marks as this delivery leaves them. */
  marks: (ConfigMapMarks | undefined)[];
  reloads: ReloadAction[];
  /** Servers whose reload is not confirmed yet, with why. */
  pending: { server: string; detail: string }[];
}

function marksOf(observed: Observed, server: string): ConfigMapMarks | undefined {
  const annotations = observed.configMaps.get(configMapName(server))?.metadata.annotations;
  if (!annotations) return undefined;
  const marks: ConfigMapMarks = {};
  const revision = annotations[RENDERED_ANNOTATIONS.configRevision];
  const apply = annotations[RENDERED_ANNOTATIONS.configApply];
  const reason = annotations[RENDERED_ANNOTATIONS.restartReason];
  const since = annotations[RENDERED_ANNOTATIONS.reloadSince];
  if (revision !== undefined) marks.revision = revision;
  if (apply !== undefined) marks.apply = apply;
  if (reason !== undefined) marks.restartReason = reason;
  if (since !== undefined) marks.reloadSince = since;
  return marks;
}

const userState = (user: SystemUser): SystemUserState =>
  user.kind === "unusable" ? { kind: "unusable", message: user.message } : { kind: user.kind };

export function decideConfigChanges(observed: Observed, servers: readonly ServerInput[], now: Date): ConfigChanges {
  const target = observed.plan.revision;
  // A refused trust or a missing certificate holds reloads as it holds the rollout.
  const held = observed.hold !== undefined || !observed.certificatesReady;
  // While servers are leaving, the others keep their routes to them: evacuation copies data
  // over those routes. Their shorter route lists are reloaded once the leaving servers are gone.
  const leaving = servers.some((s) => s.exists && (!s.planned || s.replace === true));
  const pending: ConfigChanges["pending"] = [];
  const reloads: ReloadAction[] = [];
  const results = servers.map((server): { server: ServerInput; marks?: ConfigMapMarks } => {
    const marks = marksOf(observed, server.name);
    const planned = observed.plan.servers.find((p) => p.name === server.name);
    const statefulSet = observed.statefulSets.get(server.name);
    const keep = { server, ...(marks ? { marks } : {}) };
    if (held || !planned || !statefulSet || server.onTarget) return keep;
    const decision = decideConfigApply({
      target,
      specMatches: statefulSet.metadata.annotations?.[RENDERED_ANNOTATIONS.specDigest] === planned.specDigest,
      restartReason: server.restartReason ?? NO_RELOAD,
      ...(marks ? { configMap: marks } : {}),
      ...(server.reportedRevision ? { reportedRevision: server.reportedRevision } : {}),
      systemUser: userState(observed.systemUser),
      now,
    });
    const { restartReason: _reason, ...rest } = server;
    if (decision.kind === "restart") return { ...keep, server: { ...rest, restartReason: decision.reason } };
    if (decision.kind === "start-reload" && leaving) {
      pending.push({ server: server.name, detail: "waits until the leaving servers are gone" });
      return { ...keep, server: { ...rest, reloading: true } };
    }
    // Every reload kind needs the ConfigMap; without one the decision is already a restart.
    if (!observed.configMaps.has(configMapName(server.name))) return keep;
    reloads.push({ server: server.name, step: decision });
    switch (decision.kind) {
      case "reloaded":
        return {
          server: { ...rest, onTarget: true, reportedRevision: target },
          marks: { revision: target, apply: "Reload" },
        };
      case "reload-failed":
        return {
          server: { ...rest, restartReason: decision.reason },
          marks: { revision: target, apply: "Restart", restartReason: decision.reason },
        };
      case "start-reload":
        pending.push({
          server: server.name,
          detail: "its new config is written; waiting for the kubelet to deliver it",
        });
        return { server: { ...rest, reloading: true }, marks: { revision: target, apply: "Reload" } };
      case "confirm-reload":
        pending.push({ server: server.name, detail: "asked to reload; confirmed once it reports the revision" });
        return { server: { ...rest, reloading: true }, marks: marks ?? {} };
    }
  });
  return {
    servers: results.map((r) => r.server),
    marks: results.filter((r) => r.server.planned && r.server.exists).map((r) => r.marks),
    reloads,
    pending,
  };
}
