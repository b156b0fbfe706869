import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { KubeObject } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { dispatch } from "./dispatch.ts";
import type { OperatorFunction } from "./function.ts";
import { done } from "./outcome.ts";
import { RESYNC_WORK } from "./resync.ts";

type Condition = { type: string; status: string; reason: string };

const stream = (namespace: string, name: string, generation: number, observed: number, conditions: Condition[]) =>
  ({
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name, namespace, generation, uid: `${namespace}-${name}`, resourceVersion: "7" },
    spec: {},
    status: { observedGeneration: observed, conditions },
  }) as KubeObject;

const ready: Condition = { type: "Ready", status: "True", reason: "Synced" };
const failing: Condition = { type: "Ready", status: "False", reason: "ConnectFailed" };
const stalled: Condition = { type: "Stalled", status: "True", reason: "RequestRefused" };

const tick = (work: Record<string, unknown> = RESYNC_WORK) =>
  new CloudEvent<unknown>({
    id: "tick-1",
    type: "dev.knative.sources.ping",
    source: "/apis/v1/namespaces/nats-operator/pingsources/sync-stream-resync",
    datacontenttype: "application/json",
    target: "sync-stream",
    data: work,
  });

type Options = Pick<OperatorFunction, "checksDrift" | "caresAbout"> & { work?: Record<string, unknown>; now?: Date };

function sweepOf(objects: KubeObject[], options: Options = {}) {
  const delivered: string[] = [];
  const fn: OperatorFunction = {
    name: "sync-stream",
    kinds: ["NatsStream.jetstream.nats-operator.io", "NatsReferenceGrant.nats-operator.io"],
    owns: ["NatsStream.jetstream.nats-operator.io"],
    handlesPings: true,
    ...(options.checksDrift ? { checksDrift: true } : {}),
    ...(options.caresAbout ? { caresAbout: options.caresAbout } : {}),
    async handle(context) {
      if (context.event.source === "apiserver")
        delivered.push(`${context.event.action} ${context.event.ref.namespace}/${context.event.ref.name}`);
      return done("reconciled");
    },
  };
  const deps = {
    log: createLogger({ level: "silent" }),
    kube: async () => memoryKube(objects),
    recorder: async () => ({ record: async () => undefined }),
    ...(options.now ? { now: () => options.now as Date } : {}),
  };
  return { run: () => dispatch(fn, tick(options.work), deps), delivered };
}

describe("a resync tick", () => {
  it("leaves objects at rest alone", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [ready])]);
    expect((await run()).kind).toBe("done");
    expect(delivered).toEqual([]);
  });

  it("delivers an update of each owned object whose spec is not yet observed, in every namespace", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 3, 2, [ready]), stream("b", "audit", 1, 1, [ready])]);
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("delivers an object left un-Ready even though its status is current, which an echo check would drop", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [failing])]);
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("delivers an object Stalled by a refused request, so a fixed RBAC takes effect without an edit", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [ready, stalled])]);
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("says what it swept", async () => {
    const { run } = sweepOf([stream("a", "orders", 3, 2, [ready]), stream("b", "audit", 1, 1, [ready])]);
    expect(await run()).toMatchObject({
      kind: "done",
      summary: "resync: 2 objects, 1 not at rest delivered, 0 not done",
    });
  });

  it("delivers every owned object, at rest or not, to a function that checks drift", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [ready]), stream("b", "audit", 1, 1, [ready])], {
      checksDrift: true,
    });
    expect(await run()).toMatchObject({ summary: "resync: 2 objects, 2 delivered to check drift, 0 not done" });
    expect(delivered).toEqual(["update a/orders", "update b/audit"]);
  });

  it("sweeps only the namespace its body names", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 3, 2, [ready]), stream("b", "audit", 2, 1, [ready])], {
      work: { ...RESYNC_WORK, namespace: "b" },
    });
    await run();
    expect(delivered).toEqual(["update b/audit"]);
  });

  it("delivers an object at rest whose status names a time that has come, as the function judges it", async () => {
    const due = {
      ...stream("a", "orders", 2, 2, [ready]),
      status: { observedGeneration: 2, conditions: [ready], renewAt: "2026-06-01T00:00:00Z" },
    };
    const later = {
      ...stream("b", "audit", 2, 2, [ready]),
      status: { observedGeneration: 2, conditions: [ready], renewAt: "2027-06-01T00:00:00Z" },
    };
    const { run, delivered } = sweepOf([due, later] as KubeObject[], {
      now: new Date("2026-12-05T00:00:00Z"),
      caresAbout: (snapshot, now) =>
        Date.parse(String((snapshot.status as Record<string, unknown> | undefined)?.["renewAt"])) <= now.getTime(),
    });
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });
});
