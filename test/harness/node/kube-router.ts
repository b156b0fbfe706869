// The node's NetworkPolicy enforcer: kube-router's firewall controller alone (no routing, no
// service proxy: the bridge routes and kube-proxy serves Services), run as a host process in the
// node's network namespace with an identity of its own. It writes iptables chains and ipsets
// there: a pod that a policy selects takes only what the policy admits, as on any cluster.
//
// Why kube-router: kube-network-policies (what kind ships) sends packets to user space with
// nftables' `queue`, which this machine's kernel lacks (CONFIG_NFT_QUEUE is not set: `nft add
// rule ... queue` fails with "No such file or directory"); kube-router needs only iptables and
// ipset. v2.1.0 is the one version the Go module proxy serves, and it is flagged with reported
// security flaws: acceptable for a component of the test harness's node only, never shipped.
import type { NodeAddresses } from "./addresses.ts";

/** The user of kube-router's client certificate. */
export const KUBE_ROUTER_USER = "system:kube-router";

/**
 * What its informers read: it starts one for each of these kinds whatever controllers run, and
 * waits for all of them to sync, so each needs list and watch; get on nodes for its own Node's
 * address. Nothing is written.
 */
export const kubeRouterRbac = [
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: KUBE_ROUTER_USER },
    rules: [
      {
        apiGroups: [""],
        resources: ["pods", "namespaces", "services", "endpoints", "nodes"],
        verbs: ["list", "watch"],
      },
      { apiGroups: [""], resources: ["nodes"], verbs: ["get"] },
      { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["list", "watch"] },
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
    ],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: KUBE_ROUTER_USER },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: KUBE_ROUTER_USER },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: KUBE_ROUTER_USER }],
  },
];

export function kubeRouterArgs(input: { kubeconfig: string; nodeName: string; addresses: NodeAddresses }): string[] {
  return [
    "--run-firewall=true",
    "--run-router=false",
    "--run-service-proxy=false",
    `--kubeconfig=${input.kubeconfig}`,
    `--hostname-override=${input.nodeName}`,
    `--service-cluster-ip-range=${input.addresses.serviceRange}`,
    "--v=1",
  ];
}

/** The chain its firewall controller jumps to from FORWARD: there once its first sync has run. */
export const KUBE_ROUTER_FORWARD_CHAIN = "KUBE-ROUTER-FORWARD";

/**
 * The host's traffic to pods is the node's own. The harness's host is where the control plane,
 * the test process and the operator of an integration test (in process) run; its packets enter
 * the node through the link from the host end's address. In a single-node cluster those run on
 * the node, and every NetworkPolicy implementation admits a node's own traffic to its pods
 * (probes, the API server's proxy): kube-router by a rule accepting a source address of the
 * node (`addrtype --src-type LOCAL`), which the host end's address is not. So this mangle rule
 * gives the host's packets the mark kube-router's pod chains set when a policy admits a packet
 * (0x10000), before those chains see them. Pods reaching pods, the traffic a NetworkPolicy is
 * about, are judged by the policies alone.
 */
export function hostTrafficRule(addresses: NodeAddresses): string[] {
  return [
    "-t",
    "mangle",
    "-A",
    "PREROUTING",
    "-i",
    "eth0",
    "-s",
    `${addresses.hostLinkIp}/32`,
    "-d",
    addresses.routedToNode,
    "-m",
    "comment",
    "--comment",
    "nats-operator harness: the host's traffic to pods is the node's own",
    "-j",
    "MARK",
    "--set-xmark",
    "0x10000/0x10000",
  ];
}
