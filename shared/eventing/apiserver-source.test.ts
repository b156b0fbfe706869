import { describe, expect, it } from "@jest/globals";
import type { CloudEvent } from "cloudevents";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createLogger } from "../telemetry/logger.ts";
import { startApiServerSource } from "./apiserver-source.ts";

const stream = (name: string, rv: string) => ({
  metadata: { name, namespace: "team-a", resourceVersion: rv, generation: 1 },
});

describe("the local ApiServerSource", () => {
  it("emits an add for every existing object, then the watch's changes, as the adapter shapes them", async () => {
    const transport = scriptedTransport(
      {
        "GET /apis/jetstream.nats-operator.io/v1beta1/natsstreams": [
          { metadata: { resourceVersion: "10" }, items: [stream("orders", "9")] },
        ],
      },
      [
        [
          { type: "MODIFIED", object: stream("orders", "11") },
          { type: "DELETED", object: stream("orders", "12") },
        ],
      ],
    );
    const events: CloudEvent<unknown>[] = [];
    const abort = new AbortController();
    const running = startApiServerSource(
      transport,
      [
        {
          source: "s",
          mode: "Resource",
          apiVersion: "jetstream.nats-operator.io/v1beta1",
          kind: "NatsStream",
          selector: undefined,
          owner: undefined,
        },
      ],
      (ce) => {
        events.push(ce);
        if (events.length === 3) abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
    );
    await running;
    expect(events.map((e) => e.type)).toEqual([
      "dev.knative.apiserver.resource.add",
      "dev.knative.apiserver.resource.update",
      "dev.knative.apiserver.resource.delete",
    ]);
    expect(events[0]).toMatchObject({
      source: "https://127.0.0.1:6443",
      subject: "/apis/jetstream.nats-operator.io/v1beta1/namespaces/team-a/natsstreams/orders",
      kind: "NatsStream",
      apiversion: "jetstream.nats-operator.io/v1beta1",
      name: "orders",
      namespace: "team-a",
    });
    expect(transport.requests.find((r) => r.method === "WATCH")?.path).toContain("resourceVersion=10");
  });

  it("passes only objects controlled by the source's owner kind, by reference", async () => {
    const owned = {
      metadata: {
        name: "demo-0",
        namespace: "a",
        ownerReferences: [
          {
            apiVersion: "cluster.nats-operator.io/v1beta1",
            kind: "NatsCluster",
            name: "demo",
            uid: "u",
            controller: true,
          },
        ],
      },
    };
    const stranger = { metadata: { name: "other", namespace: "a" } };
    const transport = scriptedTransport({
      "GET /apis/apps/v1/statefulsets": [{ metadata: { resourceVersion: "1" }, items: [stranger, owned] }],
    });
    const events: CloudEvent<unknown>[] = [];
    const abort = new AbortController();
    const running = startApiServerSource(
      transport,
      [
        {
          source: "c",
          mode: "Reference",
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          selector: undefined,
          owner: { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster" },
        },
      ],
      (ce) => events.push(ce),
      createLogger({ level: "silent" }),
      abort.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    abort.abort();
    await running;
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toEqual({ apiVersion: "apps/v1", kind: "StatefulSet", name: "demo-0", namespace: "a" });
  });
});
