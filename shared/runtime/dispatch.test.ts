import { describe, expect, it } from "@jest/globals";
import { KubeRequestError } from "../kube/errors.ts";
import type { EventRecorder } from "../kube/events.ts";
import type { KubeObject } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { clusterEvent } from "../../test/support/events.ts";
import { dispatch } from "./dispatch.ts";
import type { OperatorFunction } from "./function.ts";
import { done, type Outcome } from "./outcome.ts";

type Conditions = { status?: { conditions?: { type: string; status: string; reason: string }[] } };

const clusterKey = {
  apiVersion: "cluster.nats-operator.io/v1beta1",
  kind: "NatsCluster",
  namespace: "team-a",
  name: "demo",
};
const cluster = (conditions: { type: string; status: string; reason: string }[] = []): KubeObject =>
  ({
    apiVersion: clusterKey.apiVersion,
    kind: clusterKey.kind,
    metadata: { name: "demo", namespace: "team-a", generation: 2 },
    spec: {},
    status: { conditions: [{ type: "Ready", status: "True", reason: "AllServersReady" }, ...conditions] },
  }) as KubeObject;

function setup(seed: KubeObject, handle: () => Promise<Outcome>) {
  const kube = memoryKube([seed]);
  const events: { type: string; reason: string; note: string }[] = [];
  const recorder: EventRecorder = {
    async record(_regarding, type, reason, note) {
      events.push({ type, reason, note });
    },
  };
  const fn: OperatorFunction = {
    name: "scripted",
    kinds: ["NatsCluster.cluster.nats-operator.io"],
    handlesPings: false,
    handle,
  };
  const deps = { log: createLogger({ level: "silent" }), kube: async () => kube, recorder: async () => recorder };
  const conditions = async () => (await kube.get<KubeObject & Conditions>(clusterKey))?.status?.conditions ?? [];
  return { kube, events, fn, deps, conditions };
}

const refusing = async (): Promise<Outcome> => {
  throw new KubeRequestError(422, "Invalid", 'StatefulSet.apps "demo-0" is invalid: spec.template: field is immutable');
};

describe("a request the API server refuses for good", () => {
  it("is acknowledged, not retried", async () => {
    const { fn, deps } = setup(cluster(), refusing);
    expect(
      (await dispatch(fn, clusterEvent({}, { metadata: { name: "demo", namespace: "team-a", generation: 2 } }), deps))
        .kind,
    ).toBe("refused");
  });

  it("shows on the object as Stalled RequestRefused beside the function's own conditions", async () => {
    const { fn, deps, conditions } = setup(cluster(), refusing);
    await dispatch(fn, clusterEvent({}, { metadata: { name: "demo", namespace: "team-a", generation: 2 } }), deps);
    expect(await conditions()).toEqual([
      expect.objectContaining({ type: "Ready", status: "True" }),
      expect.objectContaining({ type: "Stalled", status: "True", reason: "RequestRefused", observedGeneration: 2 }),
    ]);
  });

  it("is recorded as a Warning Event naming the refusal", async () => {
    const { fn, deps, events } = setup(cluster(), refusing);
    await dispatch(fn, clusterEvent({}, { metadata: { name: "demo", namespace: "team-a", generation: 2 } }), deps);
    expect(events).toEqual([
      expect.objectContaining({
        type: "Warning",
        reason: "RequestRefused",
        note: expect.stringContaining("422 Invalid"),
      }),
    ]);
  });

  it("on a child's event (a StatefulSet's) is left to the owner's reconcile: the child's status is not written", async () => {
    const statefulSet = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "demo-0", namespace: "team-a", generation: 1 },
      spec: {},
    } as KubeObject;
    const { fn, deps, kube } = setup(statefulSet, refusing);
    const childFn = { ...fn, kinds: ["StatefulSet.apps"] };
    const event = clusterEvent(
      { type: "dev.knative.apiserver.ref.update", kind: "StatefulSet", apiversion: "apps/v1", name: "demo-0" },
      { kind: "StatefulSet", apiVersion: "apps/v1", name: "demo-0", namespace: "team-a" },
    );
    expect((await dispatch(childFn, event, deps)).kind).toBe("refused");
    const ref = { apiVersion: "apps/v1", kind: "StatefulSet", namespace: "team-a", name: "demo-0" };
    expect((await kube.get<KubeObject & Conditions>(ref))?.status).toBeUndefined();
  });

  it("clears Stalled once a later reconcile gets through", async () => {
    const stalled = { type: "Stalled", status: "True", reason: "RequestRefused" };
    const { fn, deps, conditions } = setup(cluster([stalled]), async () => done("applied"));
    const payload = {
      metadata: { name: "demo", namespace: "team-a", generation: 3 },
      status: { conditions: [stalled] },
    };
    expect((await dispatch(fn, clusterEvent({}, payload), deps)).kind).toBe("done");
    expect((await conditions()).map((c) => c.type)).toEqual(["Ready"]);
  });
});

describe("a transient API failure", () => {
  it("is retried and leaves the object's conditions alone", async () => {
    const { fn, deps, conditions, events } = setup(cluster(), async () => {
      throw new KubeRequestError(503, "ServiceUnavailable", "etcd is down");
    });
    expect(
      (await dispatch(fn, clusterEvent({}, { metadata: { name: "demo", namespace: "team-a", generation: 2 } }), deps))
        .kind,
    ).toBe("retry");
    expect((await conditions()).map((c) => c.type)).toEqual(["Ready"]);
    expect(events).toEqual([]);
  });
});
