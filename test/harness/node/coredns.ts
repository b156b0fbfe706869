// CoreDNS as the cluster's DNS, run as a host process in the node's network
// namespace (bound to the node's address, which the kubelet gives pods as
// their DNS server), answering for cluster.local from the API server.
import type { NodeAddresses } from "./addresses.ts";

/** The RBAC CoreDNS's kubernetes plugin needs, for the user of its client certificate. */
export const COREDNS_USER = "system:coredns";

/** A namespace of another run's cluster whose names this cluster's DNS answers by asking that cluster's. */
export interface PeerNamespace {
  namespace: string;
  dns: string;
}

/**
 * The Corefile. `peers`: the namespaces of other clusters (a second control plane in the same
 * test) whose Service names resolve here as they would through a platform's DNS federation; each
 * is its own zone, forwarded to its cluster's DNS, so two clusters that know each other never
 * ask each other in a loop. `reload` picks up a rewritten Corefile within two seconds.
 */
export function corefile(input: { kubeconfig: string; addresses: NodeAddresses; peers?: PeerNamespace[] }): string {
  const peers = (input.peers ?? []).map(
    (peer) => `${peer.namespace}.svc.cluster.local:53 {
    bind ${input.addresses.nodeIp}
    forward . ${peer.dns}
}
`,
  );
  return `${peers.join("")}.:53 {
    bind ${input.addresses.nodeIp}
    reload 2s
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig ${input.kubeconfig}
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 5
    }
    cache 5
    loadbalance
}
`;
}

export const corednsRbac = [
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: COREDNS_USER },
    rules: [
      { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
    ],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: COREDNS_USER },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: COREDNS_USER },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: COREDNS_USER }],
  },
];
