// Why a server off the target revision needs a restart, or NO_RELOAD when every change it has
// is one nats-server 2.15 applies on reload (then only the want of a system user restarts it).

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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Dotted paths that differ, descending only into objects both sides hold. */
export function changedPaths(before: unknown, after: unknown, prefix = ""): string[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changedPaths(before[key], after[key], prefix ? `${prefix}.${key}` : key));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}

function withoutRemotes(leafnodes: Record<string, unknown>): Record<string, unknown> {
  const { remotes: _remotes, ...rest } = leafnodes;
  return rest;
}

/** Whether 2.15 applies a change at `path` on reload; `before` and `after` are the whole configs. */
function isReloadable(path: string, before: unknown, after: unknown): boolean {
  if (reloadable.some((p) => path === p || path.startsWith(`${p}.`))) return true;
  const old = valueAt(before, path);
  const next = valueAt(after, path);
  if (path === "jetstream.max_memory_store" || path === "jetstream.max_file_store") {
    return typeof old === "number" && typeof next === "number" && next > old;
  }
  // nats-server 2.15 refuses to reload a changed sync interval (server/reload.go has no case for
  // SyncInterval or SyncAlways): only writing out its default, 2m, changes nothing it runs.
  if (path === "jetstream.sync_interval") return effectiveSyncInterval(old) === effectiveSyncInterval(next);
  // Leaf remotes come and go on reload; anything else of the listener needs a restart.
  if (path === "leafnodes" || path.startsWith("leafnodes.")) {
    const oldLeaf = valueAt(before, "leafnodes");
    const newLeaf = valueAt(after, "leafnodes");
    return (
      isObject(oldLeaf) &&
      isObject(newLeaf) &&
      JSON.stringify(sortedKeys(withoutRemotes(oldLeaf))) === JSON.stringify(sortedKeys(withoutRemotes(newLeaf)))
    );
  }
  // Only the system account's own preload, re-signed: running servers also get it as a claims update.
  if (path.startsWith("resolver_preload.")) {
    const system = valueAt(before, "system_account");
    return (
      typeof system === "string" && system === valueAt(after, "system_account") && path === `resolver_preload.${system}`
    );
  }
  return false;
}

/** nats-server's sync interval when `sync_interval` is absent. */
const DEFAULT_SYNC_INTERVAL = "2m";

const effectiveSyncInterval = (value: unknown): unknown => value ?? DEFAULT_SYNC_INTERVAL;

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

function valueAt(object: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), object);
}

/** Every change is reloadable; said as the restart reason when there is no system user to reload with. */
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
  const restartOnly = paths.filter((p) => !isReloadable(p, before, after));
  if (restartOnly.length === 1) return `${restartOnly[0]} is restart-only`;
  if (restartOnly.length > 1) return `${restartOnly.join(", ")} are restart-only`;
  return NO_RELOAD;
}
