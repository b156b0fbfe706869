import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { KubeObject } from "../../shared/kube/index.ts";
import { dispatch } from "../../shared/runtime/dispatch.ts";
import { createLogger } from "../../shared/telemetry/index.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { RECOVERED_BY } from "./dropped.ts";
import { deadLetter } from "./index.ts";

/** The objects the API server holds in these tests: the stream and the PingSource events name. */
const existing: KubeObject[] = [
  {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name: "orders", namespace: "team-a", uid: "u-1", resourceVersion: "5" },
  },
  {
    apiVersion: "sources.knative.dev/v1",
    kind: "PingSource",
    metadata: { name: "orders-drift", namespace: "team-a", uid: "p-1" },
  },
];

function deliver(ce: CloudEvent<unknown>, objects: KubeObject[] = existing) {
  const recorded: { regarding: KubeObject; type: string; reason: string; note: string }[] = [];
  const deps = {
    log: createLogger({ level: "silent" }),
    kube: async () => memoryKube(objects),
    recorder: async () => ({
      async record(regarding: KubeObject, type: string, reason: string, note: string) {
        recorded.push({ regarding, type, reason, note });
      },
    }),
  };
  return { outcome: dispatch(deadLetter, ce, deps), recorded };
}

const dropped = (extra: Record<string, unknown>) =>
  new CloudEvent<unknown>({
    id: "evt-7",
    source: "https://10.96.0.1:443",
    datacontenttype: "application/json",
    knativeerrorcode: "503",
    knativeerrordest: "http://sync-stream.nats-operator.svc.cluster.local",
    ...extra,
  } as never);

describe("an event the Broker gave up on", () => {
  it("is recorded as a Warning EventDropped on the object it named, saying who refused it", async () => {
    const { outcome, recorded } = deliver(
      dropped({
        type: "dev.knative.apiserver.resource.update",
        apiversion: "jetstream.nats-operator.io/v1beta1",
        kind: "NatsStream",
        namespace: "team-a",
        name: "orders",
        data: { metadata: { name: "orders", namespace: "team-a", uid: "u-1", generation: 2 }, spec: {} },
      }),
    );
    expect((await outcome).kind).toBe("done");
    expect(recorded).toEqual([
      {
        regarding: {
          apiVersion: "jetstream.nats-operator.io/v1beta1",
          kind: "NatsStream",
          metadata: { name: "orders", namespace: "team-a", uid: "u-1" },
        },
        type: "Warning",
        reason: "EventDropped",
        note:
          "a dev.knative.apiserver.resource.update event (evt-7) for this object was dropped after the Broker's retries " +
          `(http://sync-stream.nats-operator.svc.cluster.local answered 503); ${RECOVERED_BY}`,
      },
    ]);
  });

  it("is recorded on its PingSource when it was a tick", async () => {
    const { outcome, recorded } = deliver(
      dropped({
        type: "dev.knative.sources.ping",
        source: "/apis/v1/namespaces/team-a/pingsources/orders-drift",
        data: { drift: true },
      }),
    );
    expect((await outcome).kind).toBe("done");
    expect(recorded.map((r) => [r.regarding.kind, r.regarding.metadata.namespace, r.regarding.metadata.name])).toEqual([
      ["PingSource", "team-a", "orders-drift"],
    ]);
    expect(recorded[0]?.regarding.metadata.uid).toBe("p-1");
    expect(recorded[0]?.note).toMatch(/; the PingSource's next tick does what this one would have$/);
  });

  it("never puts the event's data in the note", async () => {
    const { outcome, recorded } = deliver(
      dropped({
        type: "dev.knative.apiserver.resource.update",
        apiversion: "v1",
        kind: "Secret",
        namespace: "team-a",
        name: "creds",
        data: { metadata: { name: "creds", namespace: "team-a" }, data: { seed: "U0VDUkVU" } },
      }),
    );
    await outcome;
    expect(JSON.stringify(recorded)).not.toContain("U0VDUkVU");
  });
});

// Anyone in the cluster can reach the endpoint (SECURITY.md), so what an event names is read back.
describe("an event naming no object that exists", () => {
  const forged = (name: string, uid?: string) =>
    dropped({
      type: "dev.knative.apiserver.resource.update",
      apiversion: "jetstream.nats-operator.io/v1beta1",
      kind: "NatsStream",
      namespace: "team-a",
      name,
      data: { metadata: { name, namespace: "team-a", ...(uid !== undefined ? { uid } : {}) }, spec: {} },
    });

  it("writes no Event when nothing of that name exists", async () => {
    const { outcome, recorded } = deliver(forged("payments"));
    expect(await outcome).toMatchObject({ kind: "done", summary: expect.stringContaining("does not exist") });
    expect(recorded).toEqual([]);
  });

  it("writes no Event when the object of that name is another one (another uid)", async () => {
    const { outcome, recorded } = deliver(forged("orders", "u-old"));
    expect((await outcome).kind).toBe("done");
    expect(recorded).toEqual([]);
  });

  it("records on the object read back, with its uid, when the event carried none", async () => {
    const { outcome, recorded } = deliver(forged("orders"));
    expect((await outcome).kind).toBe("done");
    expect(recorded.map((r) => r.regarding.metadata)).toEqual([{ name: "orders", namespace: "team-a", uid: "u-1" }]);
  });

  it("never records on a Secret, which it does not read", async () => {
    const secret: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "creds", namespace: "team-a", uid: "s-1" },
    };
    const { outcome, recorded } = deliver(
      dropped({
        type: "dev.knative.apiserver.ref.update",
        apiversion: "v1",
        kind: "Secret",
        namespace: "team-a",
        name: "creds",
      }),
      [secret],
    );
    expect(await outcome).toMatchObject({ kind: "done", summary: expect.stringContaining("Secrets are not read") });
    expect(recorded).toEqual([]);
  });

  it("cuts the sender's attributes short in the note", async () => {
    const { outcome, recorded } = deliver(
      dropped({
        type: "dev.knative.apiserver.resource.update",
        id: `evt-${"x".repeat(500)}`,
        knativeerrordest: `http://${"y".repeat(500)}`,
        apiversion: "jetstream.nats-operator.io/v1beta1",
        kind: "NatsStream",
        namespace: "team-a",
        name: "orders",
        data: { metadata: { name: "orders", namespace: "team-a", uid: "u-1" }, spec: {} },
      }),
    );
    await outcome;
    expect(recorded).toHaveLength(1);
    // The sender's 1,000 characters are cut to two of 128; the rest is the note's own text.
    expect(recorded[0]?.note).not.toContain("x".repeat(128));
    expect(recorded[0]?.note).not.toContain("y".repeat(128));
    expect(recorded[0]?.note.length).toBeLessThan(700);
  });
});
