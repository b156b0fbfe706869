import { describe, expect, it } from "@jest/globals";
import { createKube, type EventRecorder, KubeRequestError } from "../../shared/kube/index.ts";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";
import { reportFailure } from "./failure.ts";

const path = "/apis/cluster.nats-operator.io/v1beta1/namespaces/nats-system/natsclusters/demo";
const failing = (message: string) => demoCluster({}, { annotations: { [RENDER_FAILURE_ANNOTATION]: message } });

function recorder() {
  const notes: [string, string, string][] = [];
  const record: EventRecorder = {
    record: async (_regarding, type, reason, note) => void notes.push([type, reason, note]),
  };
  return { notes, recorder: async () => record };
}

describe("reportFailure", () => {
  it("records a new failure in the annotation and one ReconcileFailed Warning event with the same message", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    expect(
      await reportFailure(
        createKube(transport),
        events.recorder,
        demoCluster(),
        "not controlled by this NatsCluster, left untouched: Service demo",
      ),
    ).toBe(true);
    expect(transport.requests.map((r) => [r.method, r.path, r.options.body])).toEqual([
      [
        "PATCH",
        path,
        {
          metadata: {
            resourceVersion: "100",
            annotations: {
              [RENDER_FAILURE_ANNOTATION]: "not controlled by this NatsCluster, left untouched: Service demo",
            },
          },
        },
      ],
    ]);
    expect(events.notes).toEqual([
      ["Warning", "ReconcileFailed", "not controlled by this NatsCluster, left untouched: Service demo"],
    ]);
  });

  it("writes nothing and records no event when the failure is unchanged", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    expect(await reportFailure(createKube(transport), events.recorder, failing("boom"), "boom")).toBe(false);
    expect(transport.requests).toEqual([]);
    expect(events.notes).toEqual([]);
  });

  it("records the failure once when a concurrent delivery recorded it first", async () => {
    const transport = scriptedTransport({
      [`PATCH ${path}`]: [new KubeRequestError(409, "Conflict", "the object has been modified")],
      [`GET ${path}`]: [failing("boom")],
    });
    const events = recorder();
    expect(await reportFailure(createKube(transport), events.recorder, demoCluster(), "boom")).toBe(false);
    expect(transport.requests.map((r) => r.method)).toEqual(["PATCH", "GET"]);
    expect(events.notes).toEqual([]);
  });

  it("writes again against the object read after a conflict that did not record the failure", async () => {
    const transport = scriptedTransport({
      [`PATCH ${path}`]: [new KubeRequestError(409, "Conflict", "the object has been modified")],
      [`GET ${path}`]: [demoCluster({}, { resourceVersion: "101" })],
    });
    const events = recorder();
    expect(await reportFailure(createKube(transport), events.recorder, demoCluster(), "boom")).toBe(true);
    expect(
      transport.requests.map((r) => [
        r.method,
        (r.options.body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion,
      ]),
    ).toEqual([
      ["PATCH", "100"],
      ["GET", undefined],
      ["PATCH", "101"],
    ]);
    expect(events.notes).toEqual([["Warning", "ReconcileFailed", "boom"]]);
  });

  it("records a changed failure again", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    await reportFailure(createKube(transport), events.recorder, failing("boom"), "bang");
    expect(transport.requests).toHaveLength(1);
    expect(events.notes).toEqual([["Warning", "ReconcileFailed", "bang"]]);
  });

  it("clears the annotation without an event once the reconcile succeeds", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    await reportFailure(createKube(transport), events.recorder, failing("boom"), undefined);
    expect(transport.requests.map((r) => r.options.body)).toEqual([
      { metadata: { resourceVersion: "100", annotations: { [RENDER_FAILURE_ANNOTATION]: null } } },
    ]);
    expect(events.notes).toEqual([]);
  });

  it("writes nothing when a reconcile succeeds with no failure recorded", async () => {
    const transport = scriptedTransport();
    expect(await reportFailure(createKube(transport), recorder().recorder, demoCluster(), undefined)).toBe(false);
    expect(transport.requests).toEqual([]);
  });

  it("keeps a long failure to the 1 kB an event note holds, the same text in both", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    await reportFailure(createKube(transport), events.recorder, demoCluster(), "x".repeat(2000));
    const note = events.notes[0]?.[2] ?? "";
    expect(note).toHaveLength(1024);
    expect(transport.requests[0]?.options.body).toEqual({
      metadata: { resourceVersion: "100", annotations: { [RENDER_FAILURE_ANNOTATION]: note } },
    });
  });

  it("does not repeat an unchanged long failure", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    const long = "x".repeat(2000);
    const once = demoCluster();
    await reportFailure(createKube(transport), events.recorder, once, long);
    const stored =
      (transport.requests[0]?.options.body as { metadata: { annotations: Record<string, string> } }).metadata
        .annotations[RENDER_FAILURE_ANNOTATION] ?? "";
    expect(await reportFailure(createKube(transport), events.recorder, failing(stored), long)).toBe(false);
  });

  it("keeps a specific reason beside the message, and tells the event with it", async () => {
    const transport = scriptedTransport();
    const events = recorder();
    await reportFailure(createKube(transport), events.recorder, demoCluster(), {
      reason: "TrustNotFound",
      message: "NatsOperatorTrust nats-system/t does not exist",
    });
    expect(transport.requests.map((r) => r.options.body)).toEqual([
      {
        metadata: {
          resourceVersion: "100",
          annotations: {
            [RENDER_FAILURE_ANNOTATION]: "NatsOperatorTrust nats-system/t does not exist",
            [RENDER_FAILURE_REASON_ANNOTATION]: "TrustNotFound",
          },
        },
      },
    ]);
    expect(events.notes).toEqual([["Warning", "TrustNotFound", "NatsOperatorTrust nats-system/t does not exist"]]);
  });

  it("writes nothing for an unchanged specific failure, and clears both annotations on success", async () => {
    const held = demoCluster(
      {},
      { annotations: { [RENDER_FAILURE_ANNOTATION]: "gone", [RENDER_FAILURE_REASON_ANNOTATION]: "TrustNotFound" } },
    );
    const transport = scriptedTransport();
    expect(
      await reportFailure(createKube(transport), recorder().recorder, held, {
        reason: "TrustNotFound",
        message: "gone",
      }),
    ).toBe(false);
    await reportFailure(createKube(transport), recorder().recorder, held, undefined);
    expect(transport.requests.map((r) => r.options.body)).toEqual([
      {
        metadata: {
          resourceVersion: "100",
          annotations: { [RENDER_FAILURE_ANNOTATION]: null, [RENDER_FAILURE_REASON_ANNOTATION]: null },
        },
      },
    ]);
  });

  it("records a changed reason with the same message again", async () => {
    const held = demoCluster(
      {},
      { annotations: { [RENDER_FAILURE_ANNOTATION]: "x", [RENDER_FAILURE_REASON_ANNOTATION]: "TrustNotReady" } },
    );
    const events = recorder();
    expect(await reportFailure(createKube(scriptedTransport()), events.recorder, held, "x")).toBe(true);
    expect(events.notes).toEqual([["Warning", "ReconcileFailed", "x"]]);
  });
});
