// Ingress to the server pods: routes only from the cluster itself, monitoring only from the
// operator's namespace, metrics from there and exporter.from, the client, gateway and leafnode
// ports from anywhere.
import type { Cluster as NatsCluster } from "../cluster.ts";
import type { KubeObject, OwnerReference } from "../../../shared/kube/index.ts";
import { PORTS, clusterLabels, clusterSelector } from "../names.ts";

const tcp = (port: number) => ({ protocol: "TCP", port });

/**
 * The NetworkPolicy, or undefined with `monitor.networkPolicy: false`. Without a known
 * operator namespace (outside a pod) the monitoring rule is left out, so nothing reaches it.
 */
export function renderNetworkPolicy(
  cluster: NatsCluster,
  owner: OwnerReference[],
  operatorNamespace: string | undefined,
): (KubeObject & { spec: Record<string, unknown> }) | undefined {
  if (cluster.spec.monitor?.networkPolicy === false) return undefined;
  const name = cluster.metadata.name;
  const fromOperator = operatorNamespace
    ? [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": operatorNamespace } } }]
    : [];
  const ingress: Record<string, unknown>[] = [
    {
      ports: [
        tcp(PORTS.client),
        ...(cluster.spec.gateway ? [tcp(PORTS.gateway)] : []),
        ...(cluster.spec.leafnodes ? [tcp(PORTS.leafnodes)] : []),
      ],
    },
    { ports: [tcp(PORTS.route)], from: [{ podSelector: { matchLabels: clusterSelector(name) } }] },
  ];
  if (fromOperator.length > 0) ingress.push({ ports: [tcp(PORTS.monitor)], from: fromOperator });
  if (cluster.spec.exporter?.enabled !== false) {
    const peers = [...fromOperator, ...(cluster.spec.exporter?.from ?? [])];
    if (peers.length > 0) ingress.push({ ports: [tcp(PORTS.metrics)], from: peers });
  }
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name, namespace: cluster.metadata.namespace, labels: clusterLabels(name), ownerReferences: owner },
    spec: { podSelector: { matchLabels: clusterSelector(name) }, policyTypes: ["Ingress"], ingress },
  };
}
