// kube-proxy's configuration: iptables mode in the node's network namespace,
// with its metrics and health endpoints on the namespace's loopback.
import { stringify } from "yaml";
import type { NodeAddresses } from "./addresses.ts";

export function kubeProxyConfig(input: { kubeconfig: string; nodeName: string; addresses: NodeAddresses }): string {
  return stringify({
    apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
    kind: "KubeProxyConfiguration",
    clientConnection: { kubeconfig: input.kubeconfig },
    mode: "iptables",
    clusterCIDR: input.addresses.podCidr,
    hostnameOverride: input.nodeName,
    bindAddress: input.addresses.nodeIp,
    metricsBindAddress: "127.0.0.1:10249",
    healthzBindAddress: "127.0.0.1:10256",
    // The VM's conntrack table is left as it is: kube-proxy would otherwise raise its size.
    conntrack: { maxPerCore: 0, min: 0 },
  });
}
