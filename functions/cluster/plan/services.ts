// The client Service (client port only) and the headless Service the pods' DNS names live under.
import type { Cluster as NatsCluster } from "../cluster.ts";
import type { KubeObject, OwnerReference } from "../../../shared/kube/object.ts";
import { PORTS, clusterLabels, clusterSelector, headlessServiceName } from "../names.ts";

export type ServiceObject = KubeObject & { spec: Record<string, unknown> };

const port = (name: string, number: number) => ({ name, port: number, targetPort: name, protocol: "TCP" });

export function renderServices(cluster: NatsCluster, owner: OwnerReference[]): ServiceObject[] {
  const name = cluster.metadata.name;
  const metadata = (serviceName: string) => ({
    name: serviceName,
    namespace: cluster.metadata.namespace,
    labels: clusterLabels(name),
    ownerReferences: owner,
  });
  const headlessPorts = [port("client", PORTS.client), port("route", PORTS.route), port("monitor", PORTS.monitor)];
  if (cluster.spec.exporter?.enabled !== false) headlessPorts.push(port("metrics", PORTS.metrics));
  return [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: metadata(name),
      spec: { type: "ClusterIP", selector: clusterSelector(name), ports: [port("client", PORTS.client)] },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: metadata(headlessServiceName(name)),
      spec: {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: clusterSelector(name),
        ports: headlessPorts,
      },
    },
  ];
}
