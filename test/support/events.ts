import { CloudEvent } from "cloudevents";

/** A Resource-mode ApiServerSource event for a NatsCluster, with overridable parts. */
export function clusterEvent(
  overrides: Record<string, unknown> = {},
  data: unknown = { metadata: { name: "demo", namespace: "team-a", generation: 1 } },
) {
  const attributes: Record<string, unknown> = {
    id: "evt-1",
    type: "dev.knative.apiserver.resource.update",
    source: "https://10.96.0.1:443",
    datacontenttype: "application/json",
    kind: "NatsCluster",
    apiversion: "cluster.nats-operator.io/v1beta1",
    name: "demo",
    namespace: "team-a",
    data,
    ...overrides,
  };
  // An override of undefined removes the attribute (an event lacking it).
  return new CloudEvent<unknown>(
    Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)),
  );
}
