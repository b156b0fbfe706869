// The client Service (client port only), the headless Service the pods' DNS names live under,
// and the Services a gateway or leafnode listener is exposed with when the spec asks for them.
import type { Cluster as NatsCluster } from "../cluster.ts";
import type { ServiceTemplate } from "../../../shared/api/index.ts";
import type { KubeObject, OwnerReference } from "../../../shared/kube/index.ts";
import {
  PORTS,
  clusterLabels,
  clusterSelector,
  gatewayServiceName,
  headlessServiceName,
  leafnodesServiceName,
} from "../names.ts";

export type ServiceObject = KubeObject & { spec: Record<string, unknown> };

const port = (name: string, number: number) => ({ name, port: number, targetPort: name, protocol: "TCP" });

function metadataFor(cluster: NatsCluster, owner: OwnerReference[], serviceName: string) {
  return {
    name: serviceName,
    namespace: cluster.metadata.namespace,
    labels: clusterLabels(cluster.metadata.name),
    ownerReferences: owner,
  };
}

/**
 * A listener's Service from its template. It publishes servers that are not Ready yet: a
 * JetStream server becomes Ready only once it reaches a meta leader, which across a supercluster
 * is elected over these very connections. A class the template leaves unset is not written, so
 * one a webhook defaulted is kept.
 */
function listenerService(
  cluster: NatsCluster,
  owner: OwnerReference[],
  serviceName: string,
  template: ServiceTemplate,
  listener: { name: string; number: number },
): ServiceObject {
  const metadata = metadataFor(cluster, owner, serviceName);
  const spec: Record<string, unknown> = {
    type: template.type ?? "ClusterIP",
    publishNotReadyAddresses: true,
    selector: clusterSelector(cluster.metadata.name),
    ports: [port(listener.name, listener.number)],
  };
  if (template.loadBalancerClass) spec["loadBalancerClass"] = template.loadBalancerClass;
  if (template.loadBalancerSourceRanges) spec["loadBalancerSourceRanges"] = template.loadBalancerSourceRanges;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: template.annotations ? { ...metadata, annotations: template.annotations } : metadata,
    spec,
  };
}

export function renderServices(cluster: NatsCluster, owner: OwnerReference[]): ServiceObject[] {
  const name = cluster.metadata.name;
  const { gateway, leafnodes } = cluster.spec;
  const headlessPorts = [port("client", PORTS.client), port("route", PORTS.route), port("monitor", PORTS.monitor)];
  if (cluster.spec.exporter?.enabled !== false) headlessPorts.push(port("metrics", PORTS.metrics));
  if (gateway) headlessPorts.push(port("gateway", PORTS.gateway));
  if (leafnodes) headlessPorts.push(port("leafnodes", PORTS.leafnodes));
  const services: ServiceObject[] = [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: metadataFor(cluster, owner, name),
      spec: { type: "ClusterIP", selector: clusterSelector(name), ports: [port("client", PORTS.client)] },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: metadataFor(cluster, owner, headlessServiceName(name)),
      spec: {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: clusterSelector(name),
        ports: headlessPorts,
      },
    },
  ];
  if (gateway?.service) {
    const listener = { name: "gateway", number: PORTS.gateway };
    services.push(listenerService(cluster, owner, gatewayServiceName(name), gateway.service, listener));
  }
  if (leafnodes?.service) {
    const listener = { name: "leafnodes", number: PORTS.leafnodes };
    services.push(listenerService(cluster, owner, leafnodesServiceName(name), leafnodes.service, listener));
  }
  return services;
}

/** The listener Services this cluster may render, by name, and whether the spec wants each now. */
export function listenerServiceNames(cluster: NatsCluster): { name: string; wanted: boolean }[] {
  const name = cluster.metadata.name;
  return [
    { name: gatewayServiceName(name), wanted: cluster.spec.gateway?.service !== undefined },
    { name: leafnodesServiceName(name), wanted: cluster.spec.leafnodes?.service !== undefined },
  ];
}
