// In-cluster DNS names for /etc/hosts, computed from Pods and Services:
//   <hostname>.<subdomain>.<ns>.svc.cluster.local, ...svc, <hostname>.<subdomain>.<ns>
//       for a Pod with spec.hostname and spec.subdomain (StatefulSet Pods)
//   <svc>.<ns>.svc.cluster.local, <svc>.<ns>.svc, <svc>.<ns>
//       for a Service with a selector: the IPs of the selected Pods that are
//       Ready (all of them with publishNotReadyAddresses). ClusterIP Services
//       resolve to Pod IPs as well, unless the service proxy runs (Knative
//       profile): then they resolve to their cluster IP, as in a cluster.
//   an ExternalName Service naming one of the above resolves where its target does
//       (a hosts file has no CNAMEs; Knative's channels are such Services)
// Names without the namespace (nats-0.nats, nats) are not provided: they are
// ambiguous across the test namespaces that share this machine's hosts file.
import type { V1Pod, V1Service } from "@kubernetes/client-node";

export const CLUSTER_DOMAIN = "cluster.local";

export interface PodAddress {
  pod: V1Pod;
  ip: string;
  ready: boolean;
}

function names(base: string): string[] {
  return [`${base}.svc.${CLUSTER_DOMAIN}`, `${base}.svc`, base];
}

function selects(selector: Record<string, string>, pod: V1Pod): boolean {
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

export function hostsEntries(
  pods: readonly PodAddress[],
  services: readonly V1Service[],
  clusterIPs = false,
): Map<string, string[]> {
  const byIp = new Map<string, Set<string>>();
  const add = (ip: string, list: string[]): void => {
    let set = byIp.get(ip);
    if (set === undefined) byIp.set(ip, (set = new Set()));
    for (const n of list) set.add(n);
  };
  for (const { pod, ip } of pods) {
    const ns = pod.metadata?.namespace ?? "default";
    const hostname = pod.spec?.hostname;
    const subdomain = pod.spec?.subdomain;
    if (hostname && subdomain) add(ip, names(`${hostname}.${subdomain}.${ns}`));
  }
  for (const svc of services) {
    const ns = svc.metadata?.namespace ?? "default";
    const clusterIP = svc.spec?.clusterIP;
    if (clusterIPs && clusterIP !== undefined && clusterIP !== "" && clusterIP !== "None") {
      add(clusterIP, names(`${svc.metadata?.name}.${ns}`));
      continue;
    }
    const selector = svc.spec?.selector;
    if (selector === undefined || Object.keys(selector).length === 0) continue;
    const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
    for (const p of pods) {
      if ((p.pod.metadata?.namespace ?? "default") !== ns || !selects(selector, p.pod)) continue;
      if (p.ready || publishNotReady) add(p.ip, names(`${svc.metadata?.name}.${ns}`));
    }
  }
  const ipsOf = (name: string): string[] =>
    [...byIp].filter(([, set]) => set.has(name.replace(/\.$/, ""))).map(([ip]) => ip);
  for (const svc of services) {
    const target = svc.spec?.type === "ExternalName" ? svc.spec.externalName : undefined;
    if (target === undefined) continue;
    for (const ip of ipsOf(target)) add(ip, names(`${svc.metadata?.name}.${svc.metadata?.namespace ?? "default"}`));
  }
  const out = new Map<string, string[]>();
  for (const [ip, set] of byIp) out.set(ip, [...set].sort());
  return out;
}
