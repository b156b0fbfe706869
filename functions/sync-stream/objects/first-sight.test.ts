import { describe, expect, it } from "@jest/globals";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { finalizer } from "../context.ts";
import { isFirstSight, isOwnFinalizerWrite, takeUpFirstSight } from "./first-sight.ts";
import type { JetStreamObject } from "../types.ts";

const stream = (name: string): JetStreamObject =>
  ({
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name, namespace: "team-a", generation: 1 },
    spec: { connectionRef: { name: "main" }, subjects: ["orders.>"] },
  }) as JetStreamObject;

async function created(name: string) {
  const kube = memoryKube([stream(name)]);
  const payload = await kube.get<JetStreamObject>({ ...stream(name), namespace: "team-a", name });
  if (!payload) throw new Error("the seeded stream is missing");
  kube.writes.length = 0;
  return { kube, payload };
}

describe("a new object seen first in its event's payload", () => {
  it("is taken up with one finalizer write guarded by the payload's resourceVersion, and no read", async () => {
    const { kube, payload } = await created("orders");
    const taken = await takeUpFirstSight(kube, payload);
    expect(taken?.metadata.finalizers).toEqual([finalizer]);
    expect(kube.writes).toEqual(["patch NatsStream orders"]);
  });

  it("is read instead when the payload is stale (the guarded write is refused)", async () => {
    const { kube, payload } = await created("stale");
    await kube.patch(
      { ...payload, namespace: "team-a", name: "stale" },
      { metadata: { labels: { edited: "yes" } } },
      "merge",
    );
    expect(await takeUpFirstSight(kube, payload)).toBeUndefined();
  });

  it("answers the echo of its own finalizer write without a read, and no other version", async () => {
    const { kube, payload } = await created("echo");
    const taken = await takeUpFirstSight(kube, payload);
    if (!taken) throw new Error("not taken up");
    expect(await isOwnFinalizerWrite(taken)).toBe(true);
    expect(await isOwnFinalizerWrite(payload)).toBe(false);
    expect(await isOwnFinalizerWrite({ ...taken, metadata: { ...taken.metadata, resourceVersion: "999" } })).toBe(
      false,
    );
  });
});

describe("what counts as a first sight", () => {
  it.each([
    ["an object with a status", { ...stream("s"), status: { observedGeneration: 1 } }],
    [
      "an object with the finalizer",
      { ...stream("f"), metadata: { ...stream("f").metadata, finalizers: [finalizer] } },
    ],
    [
      "an object being deleted",
      { ...stream("d"), metadata: { ...stream("d").metadata, deletionTimestamp: "2026-12-02T00:00:00Z" } },
    ],
  ])("not %s", (_what, object) => {
    expect(isFirstSight(object as JetStreamObject)).toBe(false);
  });

  it("a bare new object", () => {
    expect(isFirstSight(stream("new"))).toBe(true);
  });
});
