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

const tick = () =>
  new CloudEvent<unknown>({
    id: "tick-1",
    type: "dev.knative.sources.ping",
    source: "/apis/v1/namespaces/nats-operator/pingsources/sync-stream-resync",
    datacontenttype: "application/json",
    target: "sync-stream",
    data: RESYNC_WORK,
  });

function sweepOf(objects: KubeObject[]) {
  const delivered: string[] = [];
  const fn: OperatorFunction = {
    name: "sync-stream",
    kinds: ["NatsStream.jetstream.nats-operator.io", "NatsReferenceGrant.nats-operator.io"],
    owns: ["NatsStream.jetstream.nats-operator.io"],
    handlesPings: true,
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
  };
  return { run: () => dispatch(fn, tick(), deps), delivered };
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
});
