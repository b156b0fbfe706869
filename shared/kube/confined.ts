// An installation confined to some namespaces (chart value watchNamespaces): its accounts hold
// Roles in those namespaces only, so a list across all namespaces is refused. The functions list
// across namespaces in many places (the resync sweep, the accounts of an operator, the referrers of
// a Secret); this client turns each such list into one list per watched namespace, and treats
// objects in any other namespace as absent, which is what the confined install promises: objects
// there are ignored, even when an event names one.
import type { Kube } from "./client.ts";
import type { KubeObject } from "./object.ts";
import { resourceTypeOf } from "./resource-types.ts";

/** The namespaces of a confined installation (WATCH_NAMESPACES, comma-separated); undefined: all. */
export function watchedNamespaces(value = process.env["WATCH_NAMESPACES"]): readonly string[] | undefined {
  const names = (value ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  return names.length > 0 ? [...new Set(names)] : undefined;
}

/**
 * `kube` seen through `namespaces`: lists across all namespaces become one list per namespace;
 * a get or list in another namespace finds nothing, without asking. Cluster-scoped objects (no
 * namespace) and writes pass through: RBAC refuses a write outside, and nothing outside is read.
 */
export function confinedKube(kube: Kube, namespaces: readonly string[]): Kube {
  const watched = new Set(namespaces);
  const outside = (namespace: string | undefined) =>
    namespace !== undefined && namespace !== "" && !watched.has(namespace);
  return {
    ...kube,
    async get<T extends KubeObject>(key: Parameters<Kube["get"]>[0]): Promise<T | undefined> {
      return outside(key.namespace) ? undefined : kube.get<T>(key);
    },
    async list<T extends KubeObject>(query: Parameters<Kube["list"]>[0]): Promise<T[]> {
      if (!resourceTypeOf(query.apiVersion, query.kind).namespaced) return kube.list<T>(query);
      if (query.namespace !== undefined && query.namespace !== "") {
        return outside(query.namespace) ? [] : kube.list<T>(query);
      }
      const each = await Promise.all(namespaces.map((namespace) => kube.list<T>({ ...query, namespace })));
      return each.flat();
    },
  };
}
