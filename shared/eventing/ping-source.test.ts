import { describe, expect, it } from "@jest/globals";
import type { CloudEvent } from "cloudevents";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createLogger } from "../telemetry/logger.ts";
import { loadResyncSchedules } from "./manifests.ts";
import { startPingSources } from "./ping-source.ts";

describe("the local PingSource adapter", () => {
  it("fires a PingSource as Knative would: its data, its source path and its target extension", async () => {
    const pingSource = {
      metadata: { name: "rollout-demo", namespace: "team-a" },
      spec: {
        schedule: "* * * * * *",
        contentType: "application/json",
        data: '{"cluster":"demo"}',
        ceOverrides: { extensions: { target: "step-rollout" } },
      },
    };
    const transport = scriptedTransport({ "GET /apis/sources.knative.dev/v1/pingsources": [{ items: [pingSource] }] });
    const abort = new AbortController();
    const fired: CloudEvent<unknown>[] = [];
    const running = startPingSources(
      transport,
      (ce) => {
        fired.push(ce);
        abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
    );
    await running;
    expect(fired[0]).toMatchObject({
      type: "dev.knative.sources.ping",
      source: "/apis/v1/namespaces/team-a/pingsources/rollout-demo",
      target: "step-rollout",
      data: '{"cluster":"demo"}',
    });
  });

  it("fires the resync ticks of knative/resync.yaml, which no one applies to a local cluster", async () => {
    const resync = await loadResyncSchedules();
    expect(resync.map((p) => p.metadata.name)).toEqual([
      "render-cluster-resync",
      "step-rollout-resync",
      "sign-account-resync",
      "sync-stream-resync",
      "balance-resync",
    ]);
    const transport = scriptedTransport({ "GET /apis/sources.knative.dev/v1/pingsources": [{ items: [] }] });
    const abort = new AbortController();
    const fired: CloudEvent<unknown>[] = [];
    const everySecond = resync.map((p) => ({ ...p, spec: { ...p.spec, schedule: "* * * * * *" } }));
    await startPingSources(
      transport,
      (ce) => {
        fired.push(ce);
        if (fired.length === everySecond.length) abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
      everySecond,
    );
    expect(fired.find((ce) => ce["target"] === "sync-stream")).toMatchObject({
      source: "/apis/v1/namespaces/nats-operator/pingsources/sync-stream-resync",
      data: '{"resync":true}',
    });
  });
});
