import { kindOf } from "../api/kinds.ts";

/** Where a kind lives on the API server. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

const builtIn: Record<string, ResourceType> = {
  "v1/Namespace": { group: "", version: "v1", plural: "namespaces", namespaced: false },
  "v1/Node": { group: "", version: "v1", plural: "nodes", namespaced: false },
  "v1/Pod": { group: "", version: "v1", plural: "pods", namespaced: true },
  "v1/Service": { group: "", version: "v1", plural: "services", namespaced: true },
  "v1/ConfigMap": { group: "", version: "v1", plural: "configmaps", namespaced: true },
  "v1/Secret": { group: "", version: "v1", plural: "secrets", namespaced: true },
  "v1/PersistentVolumeClaim": { group: "", version: "v1", plural: "persistentvolumeclaims", namespaced: true },
  "v1/ServiceAccount": { group: "", version: "v1", plural: "serviceaccounts", namespaced: true },
  "v1/Endpoints": { group: "", version: "v1", plural: "endpoints", namespaced: true },
  "v1/Event": { group: "", version: "v1", plural: "events", namespaced: true },
  "apps/v1/StatefulSet": { group: "apps", version: "v1", plural: "statefulsets", namespaced: true },
  "policy/v1/PodDisruptionBudget": { group: "policy", version: "v1", plural: "poddisruptionbudgets", namespaced: true },
  "networking.k8s.io/v1/NetworkPolicy": {
    group: "networking.k8s.io",
    version: "v1",
    plural: "networkpolicies",
    namespaced: true,
  },
  "events.k8s.io/v1/Event": { group: "events.k8s.io", version: "v1", plural: "events", namespaced: true },
  "coordination.k8s.io/v1/Lease": { group: "coordination.k8s.io", version: "v1", plural: "leases", namespaced: true },
  "apiextensions.k8s.io/v1/CustomResourceDefinition": {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    namespaced: false,
  },
  "sources.knative.dev/v1/PingSource": {
    group: "sources.knative.dev",
    version: "v1",
    plural: "pingsources",
    namespaced: true,
  },
};

/**
 * The resource type of apiVersion/kind: a built-in kind, one of ours from the
 * kind registry, or else a namespaced custom resource whose plural is the
 * lower-cased kind plus "s" (the same guess the ApiServerSource makes for
 * its `subject`).
 */
export function resourceTypeOf(apiVersion: string, kind: string): ResourceType {
  const known = builtIn[`${apiVersion}/${kind}`];
  if (known) return known;
  const ours = kindOf(apiVersion, kind);
  if (ours) return { group: ours.group, version: ours.version, plural: ours.plural, namespaced: ours.namespaced };
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  return { group, version, plural: `${kind.toLowerCase()}s`, namespaced: true };
}

/** The REST path of a collection, or of one object when a name is given. */
export function resourcePath(
  type: ResourceType,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  const prefix = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scope = type.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const object = name === undefined ? "" : `/${encodeURIComponent(name)}`;
  const sub = subresource === undefined ? "" : `/${subresource}`;
  return `${prefix}${scope}/${type.plural}${object}${sub}`;
}
