import { describe, expect, it } from "@jest/globals";
import type { CloudEvent } from "cloudevents";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { KubeRequestError } from "../kube/errors.ts";
import { createLogger } from "../telemetry/logger.ts";
import { startApiServerSource } from "./apiserver-source.ts";

/** The NatsStream source of knative/apiserversources.yaml, as the runner loads it. */
const natsStreams = {
  source: "s",
  mode: "Resource",
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  selector: undefined,
  owner: undefined,
} as const;

const stream = (name: string, rv: string) => ({
  metadata: { name, namespace: "team-a", resourceVersion: rv, generation: 1 },
});

describe("the local ApiServerSource", () => {
  it("emits only the watch's changes by default, as the adapter does, and says when it has listed", async () => {
    const transport = scriptedTransport(
      {
        "GET /apis/jetstream.nats-operator.io/v1beta1/natsstreams": [
          { metadata: { resourceVersion: "10" }, items: [stream("orders", "9"), stream("audit", "8")] },
        ],
      },
      [[{ type: "ADDED", object: stream("billing", "11") }]],
    );
    const events: CloudEvent<unknown>[] = [];
    const abort = new AbortController();
    let synced = false;
    const running = startApiServerSource(
      transport,
      [natsStreams],
      (ce) => {
        events.push(ce);
        abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
      { synced: () => (synced = true) },
    );
    await running;
    expect(synced).toBe(true);
    expect(events.map((e) => `${e.type} ${String(e["name"])}`)).toEqual(["dev.knative.apiserver.resource.add billing"]);
  });

  it("says it has listed only once a listing succeeds: a 429 while a new CRD's storage initializes is retried first", async () => {
    const transport = scriptedTransport(
      {
        "GET /apis/jetstream.nats-operator.io/v1beta1/natsstreams": [
          new KubeRequestError(429, "TooManyRequests", "storage is (re)initializing"),
          { metadata: { resourceVersion: "10" }, items: [] },
        ],
      },
      [[{ type: "ADDED", object: stream("billing", "11") }]],
    );
    const abort = new AbortController();
    const syncedAfter: number[] = [];
    const running = startApiServerSource(
      transport,
      [natsStreams],
      () => abort.abort(),
      createLogger({ level: "silent" }),
      abort.signal,
      { synced: () => syncedAfter.push(transport.requests.filter((r) => r.method === "GET").length) },
    );
    await running;
    expect(syncedAfter).toEqual([2]);
  });

  it("with listedAdds, emits an add for every listed object, then the watch's changes, as the adapter shapes them", async () => {
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
      [natsStreams],
      (ce) => {
        events.push(ce);
        if (events.length === 3) abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
      { listedAdds: true },
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
      { listedAdds: true },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    abort.abort();
    await running;
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toEqual({ apiVersion: "apps/v1", kind: "StatefulSet", name: "demo-0", namespace: "a" });
  });
});
