import { describe, expect, it } from "@jest/globals";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createKube } from "./client.ts";
import { KubeRequestError } from "./errors.ts";

const cluster = {
  apiVersion: "cluster.nats-operator.io/v1beta1",
  kind: "NatsCluster",
  namespace: "team-a",
  name: "demo",
};
const clusterPath = "/apis/cluster.nats-operator.io/v1beta1/namespaces/team-a/natsclusters/demo";

describe("the Kubernetes client", () => {
  it("answers undefined for an object that does not exist", async () => {
    const transport = scriptedTransport({ [`GET ${clusterPath}`]: [new KubeRequestError(404, "NotFound", "gone")] });
    expect(await createKube(transport).get(cluster)).toBeUndefined();
  });

  it("applies with server-side apply under the function's field manager, forcing conflicts", async () => {
    const transport = scriptedTransport();
    await createKube(transport).apply(
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-0", namespace: "team-a", resourceVersion: "9", managedFields: [] } as never,
      },
      "nats-operator/render-cluster",
    );
    const [request] = transport.requests;
    expect(request).toMatchObject({
      method: "PATCH",
      path: "/api/v1/namespaces/team-a/configmaps/demo-0",
      options: {
        contentType: "application/apply-patch+yaml",
        query: { fieldManager: "nats-operator/render-cluster", force: true },
      },
    });
    expect(request?.options.body).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "demo-0", namespace: "team-a" },
    });
  });

  it("writes status through the status subresource", async () => {
    const transport = scriptedTransport();
    await createKube(transport).applyStatus(
      {
        apiVersion: cluster.apiVersion,
        kind: cluster.kind,
        metadata: { name: "demo", namespace: "team-a", generation: 2 },
        status: { observedGeneration: 2 },
      },
      "nats-operator/render-cluster",
    );
    expect(transport.requests[0]).toMatchObject({ method: "PATCH", path: `${clusterPath}/status` });
    expect(transport.requests[0]?.options.body).toEqual({
      apiVersion: cluster.apiVersion,
      kind: cluster.kind,
      metadata: { name: "demo", namespace: "team-a" },
      status: { observedGeneration: 2 },
    });
  });

  it("gives list items back their apiVersion and kind", async () => {
    const transport = scriptedTransport({
      "GET /apis/apps/v1/namespaces/team-a/statefulsets": [{ items: [{ metadata: { name: "demo-0" } }] }],
    });
    const items = await createKube(transport).list({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace: "team-a",
      labelSelector: "app=nats",
    });
    expect(items).toEqual([{ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "demo-0" } }]);
    expect(transport.requests[0]?.options.query).toEqual({ labelSelector: "app=nats" });
  });

  it("reports false when deleting what is already gone", async () => {
    const transport = scriptedTransport({ [`DELETE ${clusterPath}`]: [new KubeRequestError(404, "NotFound", "gone")] });
    expect(await createKube(transport).delete(cluster)).toBe(false);
  });

  it("passes delete preconditions to the server", async () => {
    const transport = scriptedTransport();
    await createKube(transport).delete(cluster, { preconditions: { uid: "u-1" } });
    expect(transport.requests[0]?.options.body).toEqual({
      apiVersion: "v1",
      kind: "DeleteOptions",
      preconditions: { uid: "u-1" },
    });
  });
});
