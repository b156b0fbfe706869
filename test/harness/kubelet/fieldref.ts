// Downward API: fieldRef and resourceFieldRef values of a Pod.
import type { V1Container, V1ObjectFieldSelector, V1Pod, V1ResourceFieldSelector } from "@kubernetes/client-node";

export interface PodAddresses {
  podIP: string;
  hostIP: string;
}

export function fieldRefValue(pod: V1Pod, ref: V1ObjectFieldSelector, addr: PodAddresses): string {
  const path = ref.fieldPath;
  const mapKey = /^metadata\.(labels|annotations)\['([^']*)'\]$/.exec(path);
  if (mapKey !== null) {
    const map = mapKey[1] === "labels" ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[mapKey[2] ?? ""] ?? "";
  }
  switch (path) {
    case "metadata.name":
      return pod.metadata?.name ?? "";
    case "metadata.namespace":
      return pod.metadata?.namespace ?? "";
    case "metadata.uid":
      return pod.metadata?.uid ?? "";
    case "metadata.labels":
      return Object.entries(pod.metadata?.labels ?? {})
        .map(([k, v]) => `${k}="${v}"`)
        .join("\n");
    case "metadata.annotations":
      return Object.entries(pod.metadata?.annotations ?? {})
        .map(([k, v]) => `${k}="${v}"`)
        .join("\n");
    case "spec.nodeName":
      return pod.spec?.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec?.serviceAccountName ?? "default";
    case "status.podIP":
    case "status.podIPs":
      return addr.podIP;
    case "status.hostIP":
    case "status.hostIPs":
      return addr.hostIP;
    default:
      throw new Error(`unsupported fieldRef ${path}`);
  }
}

const units: Record<string, number> = {
  "": 1,
  m: 1e-3,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

export function parseQuantity(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  if (typeof q === "number") return q;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q.trim());
  const unit = m === null ? undefined : units[m[2] ?? ""];
  if (m === null || unit === undefined) return undefined;
  return Number(m[1]) * unit;
}

/** Node capacity the kubelet advertises; also the value of unset limits. */
export const NODE_CPU = 2;
export const NODE_MEMORY = 24 * 1024 ** 3;

export function resourceFieldRefValue(container: V1Container | undefined, ref: V1ResourceFieldSelector): string {
  const [kind, resource] = ref.resource.split(".") as [string, string];
  const set = kind === "limits" ? container?.resources?.limits : container?.resources?.requests;
  let value = parseQuantity(set?.[resource] as string | undefined);
  if (value === undefined)
    value = resource === "cpu" ? (kind === "limits" ? NODE_CPU : 0) : kind === "limits" ? NODE_MEMORY : 0;
  const divisor = parseQuantity(ref.divisor as string | undefined) ?? 1;
  return String(Math.ceil(value / divisor));
}
