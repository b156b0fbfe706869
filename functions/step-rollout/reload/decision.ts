// How a server off the target revision takes its new config (C15–C17): by reload when the
// StatefulSet spec is unchanged, every config change is one 2.15 reloads and the system user
// can reach the server; by restart otherwise. The state of a reload lives on the server's
// ConfigMap (config-apply, reload-since), so any delivery can carry it on.
import { NO_RELOAD } from "./restart-reason.ts";

/** How long a reload may go unconfirmed (the kubelet may serve the old file a while). */
export const RELOAD_WINDOW_MS = 3 * 60 * 1000;

/** What the server's ConfigMap says about the config it holds. */
export interface ConfigMapMarks {
  /** `config-revision`: the revision whose config it holds. */
  revision?: string;
  /** `config-apply`: Reload or Restart. */
  apply?: string;
  /** `restart-reason`. */
  restartReason?: string;
  /** `reload-since` (RFC 3339). */
  reloadSince?: string;
}

export type SystemUserState = { kind: "ready" } | { kind: "none" } | { kind: "unusable"; message: string };

export interface ConfigApplyInput {
  target: string;
  /** The StatefulSet's spec digest is the plan's (so only the config differs). */
  specMatches: boolean;
  /** From `restartReason`: NO_RELOAD when every changed path is reloadable. */
  restartReason: string;
  configMap?: ConfigMapMarks;
  /** The revision the server reports in VARZ metadata, when it answered. */
  reportedRevision?: string;
  systemUser: SystemUserState;
  now: Date;
}

export type ConfigApply =
  | { kind: "restart"; reason: string }
  /** Write the new config to the ConfigMap, marked Reload. */
  | { kind: "start-reload" }
  /** The ConfigMap holds it: ask the server (VARZ, RELOAD) until it runs it. */
  | { kind: "confirm-reload" }
  /** The server already reports the target revision: record it on the StatefulSet. */
  | { kind: "reloaded" }
  /** Give up: mark the ConfigMap Restart with this reason; the server becomes a restart. */
  | { kind: "reload-failed"; reason: string };

const cannotReload = (user: SystemUserState): string =>
  user.kind === "unusable" ? `cannot reload: ${user.message}` : NO_RELOAD;

export function decideConfigApply(input: ConfigApplyInput): ConfigApply {
  const { configMap, target } = input;
  if (!input.specMatches) return { kind: "restart", reason: input.restartReason };
  const written = configMap?.revision === target;
  if (written && configMap.apply === "Reload") {
    if (input.reportedRevision === target) return { kind: "reloaded" };
    if (input.systemUser.kind !== "ready")
      return { kind: "reload-failed", reason: `reload failed: ${cannotReload(input.systemUser)}` };
    const since = Date.parse(configMap.reloadSince ?? "");
    if (!Number.isFinite(since))
      return { kind: "reload-failed", reason: "reload failed: the time it was asked for is not recorded" };
    if (input.now.getTime() - since >= RELOAD_WINDOW_MS)
      return { kind: "reload-failed", reason: `reload failed: not confirmed within ${RELOAD_WINDOW_MS / 60000}m` };
    return { kind: "confirm-reload" };
  }
  // Marked Restart at this revision (a failed reload, or a restart begun): it stays a restart.
  if (written && configMap.apply === "Restart")
    return { kind: "restart", reason: configMap.restartReason ?? input.restartReason };
  if (input.restartReason !== NO_RELOAD) return { kind: "restart", reason: input.restartReason };
  if (input.systemUser.kind === "ready") return { kind: "start-reload" };
  return { kind: "restart", reason: cannotReload(input.systemUser) };
}

/** What VARZ said before and after a RELOAD. */
export interface LoadedBeforeAfter {
  before: { loadTime?: string; revision?: string };
  after: { loadTime?: string; revision?: string };
}

/**
 * A reload is confirmed when the server, having loaded its config again (the load time moved
 * on), reports the target revision: the revision is written into the file, so the file it
 * loaded is the new one. A reload of the old file (the kubelet has not delivered the new one
 * yet) is not a failure: it is asked again on a later tick, within the reload window.
 */
export function judgeReload(
  target: string,
  { before, after }: LoadedBeforeAfter,
): { confirmed: true } | { confirmed: false; detail: string } {
  const advanced =
    after.loadTime !== undefined &&
    (before.loadTime === undefined || Date.parse(after.loadTime) > Date.parse(before.loadTime));
  if (!advanced) return { confirmed: false, detail: "its config load time did not advance" };
  if (after.revision === target) return { confirmed: true };
  return {
    confirmed: false,
    detail: `it reloaded revision ${after.revision ?? "(none)"}; the new config has not reached its file yet`,
  };
}

/**
 * `status.config.appliedBy`: Reload when every server's ConfigMap says its config at the target
 * came by reload; a server created at the revision, or restarted onto it, makes it Restart.
 */
export function appliedBy(target: string, marks: readonly (ConfigMapMarks | undefined)[]): "Reload" | "Restart" {
  return marks.length > 0 && marks.every((m) => m?.revision === target && m.apply === "Reload") ? "Reload" : "Restart";
}
