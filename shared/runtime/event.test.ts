import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import { clusterEvent } from "../../test/support/events.ts";
import { decodeEvent } from "./event.ts";

describe("decodeEvent", () => {
  it("names the object from the ApiServerSource extensions", () => {
    const result = decodeEvent(clusterEvent());
    expect(result).toEqual({
      ok: true,
      event: expect.objectContaining({
        source: "apiserver",
        action: "update",
        mode: "resource",
        ref: { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace: "team-a", name: "demo" },
      }),
    });
  });

  it("keeps no payload for Reference-mode events", () => {
    const ce = clusterEvent(
      { type: "dev.knative.apiserver.ref.add", kind: "Secret", apiversion: "v1" },
      { apiVersion: "v1", kind: "Secret", name: "demo", namespace: "team-a" },
    );
    const result = decodeEvent(ce);
    expect(result.ok && result.event.source === "apiserver" && result.event).toMatchObject({
      mode: "reference",
      action: "add",
      snapshot: undefined,
    });
  });

  it("reads a ping tick's JSON work and its PingSource", () => {
    const ce = new CloudEvent<unknown>({
      type: "dev.knative.sources.ping",
      source: "/apis/v1/namespaces/team-a/pingsources/rollout-demo",
      data: '{"cluster":"demo"}',
    });
    expect(decodeEvent(ce)).toEqual({
      ok: true,
      event: { source: "ping", pingSource: "team-a/rollout-demo", work: { cluster: "demo" } },
    });
  });

  it("refuses an ApiServerSource event that names no object", () => {
    const result = decodeEvent(clusterEvent({ name: undefined }, {}));
    expect(result).toEqual({ ok: false, message: expect.stringContaining("missing name") });
  });

  it("refuses an event type the operator does not consume", () => {
    const result = decodeEvent(clusterEvent({ type: "com.example.other" }));
    expect(result).toEqual({ ok: false, message: 'unsupported event type "com.example.other"' });
  });

  it("refuses a ping whose data is not a JSON object", () => {
    const ce = new CloudEvent<unknown>({ type: "dev.knative.sources.ping", source: "/x", data: "[1,2]" });
    expect(decodeEvent(ce).ok).toBe(false);
  });
});
