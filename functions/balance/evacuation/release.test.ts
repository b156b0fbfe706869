import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import type { StreamRef } from "../pass/types.ts";
import type { NatsClusterEvacuation, NatsClusterEvacuationStatus } from "./resource.ts";
import { type MoveCanceller, releaseEvacuation } from "./release.ts";

const KEY = {
  apiVersion: "jetstream.nats-operator.io/v1beta1" as const,
  kind: "NatsClusterEvacuation" as const,
  namespace: "nats-system",
  name: "retire-east",
};
const AT = "2026-12-03T10:00:00.000Z";

function world(status: NatsClusterEvacuationStatus, answers: Record<string, Awaited<ReturnType<MoveCanceller>>>) {
  const stored: NatsClusterEvacuation = {
    apiVersion: KEY.apiVersion,
    kind: KEY.kind,
    metadata: {
      name: KEY.name,
      namespace: KEY.namespace,
      finalizers: ["jetstream.nats-operator.io/finalizer"],
      deletionTimestamp: AT,
    },
    spec: { connectionRef: { name: "system" }, from: { cluster: "east" }, to: { serverTags: ["site:west"] } },
    status,
  };
  const kube = memoryKube([stored as KubeObject]);
  const events: string[] = [];
  const recorder = {
    record: async (_: KubeObject, type: string, reason: string, note: string) =>
      void events.push(`${type} ${reason}: ${note}`),
  };
  const asked: StreamRef[] = [];
  const cancel: MoveCanceller = async (move) => {
    asked.push(move);
    return answers[move.stream] ?? "none";
  };
  const read = async () => (await kube.get<NatsClusterEvacuation>(KEY)) as NatsClusterEvacuation;
  return { kube, recorder, events, asked, cancel, read };
}

const requested = (...streams: string[]) => streams.map((stream) => ({ account: "APP", stream, time: AT }));

describe("deleting an evacuation", () => {
  it("cancels each requested move still under way, records MoveCancelled, and releases the finalizer", async () => {
    const w = world({ requested: requested("ORDERS", "EVENTS") }, { ORDERS: "cancelled", EVENTS: "none" });
    const summary = await releaseEvacuation(w.kube, w.recorder, await w.read(), w.cancel);
    expect(w.asked.map((m) => m.stream)).toEqual(["ORDERS", "EVENTS"]);
    expect(w.events).toEqual([
      "Normal MoveCancelled: cancelled the move of stream ORDERS of account APP off NATS cluster east",
    ]);
    expect(summary).toBe("released: cancelled stream ORDERS of account APP");
    expect((await w.read())?.metadata.finalizers ?? []).toEqual([]);
  });

  it("cancels nothing once the evacuation was Ready", async () => {
    const ready = { type: "Ready", status: "True" as const, reason: "Evacuated", message: "", lastTransitionTime: AT };
    const w = world({ requested: requested("ORDERS"), conditions: [ready] }, { ORDERS: "cancelled" });
    await releaseEvacuation(w.kube, w.recorder, await w.read(), w.cancel);
    expect(w.asked).toEqual([]);
    expect((await w.read())?.metadata.finalizers ?? []).toEqual([]);
  });

  it("is not held by a move it cannot cancel", async () => {
    const w = world({ requested: requested("ORDERS") }, { ORDERS: { failed: "no responders" } });
    const summary = await releaseEvacuation(w.kube, w.recorder, await w.read(), w.cancel);
    expect(summary).toBe("released: stream ORDERS of account APP not cancelled: no responders");
    expect(w.events).toEqual([]);
    expect((await w.read())?.metadata.finalizers ?? []).toEqual([]);
  });
});
