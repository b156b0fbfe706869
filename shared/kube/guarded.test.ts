import { describe, expect, it } from "@jest/globals";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createKube } from "./client.ts";
import { KubeRequestError } from "./errors.ts";
import { claimInStatus } from "./guarded.ts";
import type { KubeObject } from "./object.ts";

type Cluster = KubeObject & { status?: { step?: string } };
const key = { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace: "team-a", name: "demo" };
const path = "/apis/cluster.nats-operator.io/v1beta1/namespaces/team-a/natsclusters/demo";
const current: Cluster = { ...key, metadata: { name: "demo", namespace: "team-a", resourceVersion: "41" }, status: {} };

describe("claimInStatus", () => {
  it("records the decision with a write guarded by the resourceVersion it read", async () => {
    const transport = scriptedTransport({
      [`GET ${path}`]: [current],
      [`PUT ${path}/status`]: [{ ...current, status: { step: "restart demo-2" } }],
    });
    const result = await claimInStatus<Cluster>(createKube(transport), key, () => ({ step: "restart demo-2" }));
    expect(result.kind).toBe("claimed");
    const put = transport.requests.find((r) => r.method === "PUT");
    expect(put?.options.body).toMatchObject({
      metadata: { resourceVersion: "41" },
      status: { step: "restart demo-2" },
    });
  });

  it("reports a conflict when another delivery claimed first, so the caller answers 409", async () => {
    const transport = scriptedTransport({
      [`GET ${path}`]: [current],
      [`PUT ${path}/status`]: [new KubeRequestError(409, "Conflict", "the object has been modified")],
    });
    expect(await claimInStatus<Cluster>(createKube(transport), key, () => ({ step: "x" }))).toEqual({
      kind: "conflict",
      message: "the object has been modified",
    });
  });

  it("writes nothing when the current object leaves nothing to decide", async () => {
    const transport = scriptedTransport({ [`GET ${path}`]: [current] });
    const result = await claimInStatus<Cluster>(createKube(transport), key, () => undefined);
    expect(result.kind).toBe("unchanged");
    expect(transport.requests.map((r) => r.method)).toEqual(["GET"]);
  });
});
