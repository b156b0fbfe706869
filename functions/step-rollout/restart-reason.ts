// Why a server off the target revision needs a restart. Without system credentials nothing
// can be reloaded, so every change restarts; the reason still names what changed.

export interface RunningServer {
  /** `spec-digest` annotation of its StatefulSet. */
  specDigest?: string;
  /** Image tag its StatefulSet runs (the version). */
  runningVersion?: string;
  /** The config its ConfigMap holds, if any. */
  runningConfig?: string;
}

export interface PlannedServerShape {
  specDigest: string;
  version: string;
  config: string;
}

/** Paths that a reload could apply on 2.15 (the longest matching prefix decides). */
const reloadable = ["pid_file", "server_tags", "server_metadata", "max_payload", "cluster.routes", "cluster.tls"];

/** Dotted paths that differ, descending only into objects both sides hold. */
export function changedPaths(before: unknown, after: unknown, prefix = ""): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changedPaths(before[key], after[key], prefix ? `${prefix}.${key}` : key));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}

const isReloadable = (path: string, before: unknown, after: unknown): boolean => {
  if (reloadable.some((p) => path === p || path.startsWith(`${p}.`))) return true;
  if (path === "jetstream.max_memory_store" || path === "jetstream.max_file_store") {
    return typeof before === "number" && typeof after === "number" && after > before;
  }
  return false;
};

function valueAt(object: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, key) => (typeof v === "object" && v !== null ? (v as Record<string, unknown>)[key] : undefined), object);
}

export const NO_RELOAD = "no system credentials to reload with";

export function restartReason(running: RunningServer, planned: PlannedServerShape): string {
  if (running.specDigest !== planned.specDigest) {
    return running.runningVersion && running.runningVersion !== planned.version
      ? `version ${running.runningVersion} -> ${planned.version} is restart-only`
      : "the StatefulSet spec is restart-only";
  }
  if (running.runningConfig === undefined) return "its ConfigMap does not exist";
  let before: unknown;
  let after: unknown;
  try {
    before = JSON.parse(running.runningConfig);
    after = JSON.parse(planned.config);
  } catch {
    return "its running config cannot be read";
  }
  const paths = changedPaths(before, after);
  const restartOnly = paths.filter((p) => !isReloadable(p, valueAt(before, p), valueAt(after, p)));
  if (restartOnly.length === 1) return `${restartOnly[0]} is restart-only`;
  if (restartOnly.length > 1) return `${restartOnly.join(", ")} are restart-only`;
  return NO_RELOAD;
}
