// Merges a user's partial pod spec over the rendered one, the way a strategic merge patch
// would for the lists that matter: containers, volumes, env, ports and mounts merge by key;
// other lists are replaced; objects merge; nulls are dropped first so unset means unchanged.

type Json = unknown;

const listKeys: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  volumes: "name",
  env: "name",
  ports: "containerPort",
  volumeMounts: "mountPath",
  imagePullSecrets: "name",
  tolerations: "key",
};

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function dropNulls(value: Json): Json {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(dropNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, dropNulls(v)]),
  );
}

function mergeList(base: Json[], patch: Json[], key: string): Json[] {
  const result = [...base];
  for (const item of patch) {
    const id = isObject(item) ? item[key] : undefined;
    const index = id === undefined ? -1 : result.findIndex((existing) => isObject(existing) && existing[key] === id);
    if (index < 0) result.push(item);
    else result[index] = mergeValue(result[index], item);
  }
  return result;
}

function mergeValue(base: Json, patch: Json, field?: string): Json {
  if (Array.isArray(base) && Array.isArray(patch)) {
    const key = field === undefined ? undefined : listKeys[field];
    return key === undefined ? patch : mergeList(base, patch, key);
  }
  if (isObject(base) && isObject(patch)) {
    const result: Record<string, Json> = { ...base };
    for (const [k, v] of Object.entries(patch)) result[k] = k in base ? mergeValue(base[k], v, k) : v;
    return result;
  }
  return patch;
}

/** The rendered pod spec with `overlay` merged over it; an overlay affinity replaces the rendered one. */
export function mergePodSpec<T extends object>(rendered: T, overlay: Record<string, Json> | undefined): T {
  if (!overlay) return rendered;
  const patch = dropNulls(overlay) as Record<string, Json>;
  const base: Record<string, Json> = { ...(rendered as Record<string, Json>) };
  if ("affinity" in patch) delete base["affinity"];
  return mergeValue(base, patch) as T;
}
