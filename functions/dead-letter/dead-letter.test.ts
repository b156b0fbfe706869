import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { KubeObject } from "../../shared/kube/index.ts";
import { dispatch } from "../../shared/runtime/dispatch.ts";
import { createLogger } from "../../shared/telemetry/index.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { deadLetter } from "./index.ts";

function deliver(ce: CloudEvent<unknown>) {
  const recorded: { regarding: KubeObject; type: string; reason: string; note: string }[] = [];
  const deps = {
    log: createLogger({ level: "silent" }),
    kube: async () => memoryKube([]),
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
          "(http://sync-stream.nats-operator.svc.cluster.local answered 503); the next resync reconciles the object",
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
