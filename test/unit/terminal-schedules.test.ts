// Every terminal path of every function, on the in-memory API server: where the decision says no
// poll, no PingSource is left; where it asks for one, it exists and ticks in UTC. Functions only
// declare schedules; the runtime (dispatch) writes them.
import { describe, expect, it } from "@jest/globals";
import type { CloudEvent } from "cloudevents";
import { CLUSTER_ANNOTATIONS, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import { deliverWithRetries } from "../../shared/local/delivery.ts";
import { pingEvent } from "../../shared/local/ping-event.ts";
import { pingSourceFor, type PingSourceObject } from "../../shared/runtime/schedule-source.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { dispatch, type DispatchDeps } from "../../shared/runtime/dispatch.ts";
import type { OperatorFunction } from "../../shared/runtime/function.ts";
import type { PingSchedule } from "../../shared/runtime/schedule.ts";
import { createLogger } from "../../shared/telemetry/logger.ts";
import { renderCluster } from "../../functions/render-cluster/index.ts";
import { createStepRollout } from "../../functions/step-rollout/index.ts";
import { syncStream } from "../../functions/sync-stream/index.ts";
import type { Cluster } from "../../functions/cluster/index.ts";
import { demoCluster } from "../fixtures/cluster/clusters.ts";
import { clusterEvent } from "../support/events.ts";
import { memoryKube } from "../support/memory-kube.ts";

const ns = "nats-system";
const pingSourceKey = (name: string, namespace = ns) => ({
  apiVersion: "sources.knative.dev/v1",
  kind: "PingSource",
  namespace,
  name,
});
/** A PingSource as an earlier decision left it, owned by the cluster when `owner` is given. */
function existing(name: string, target: string, owner?: KubeObject, namespace = ns): PingSourceObject {
  const schedule: PingSchedule = {
    namespace,
    name,
    target,
    work: {},
    scope: owner ? { kind: "object", owner } : { kind: "namespace" },
  };
  return pingSourceFor(schedule, "*/10 * * * * *");
}

function world(seed: KubeObject[]) {
  const kube = memoryKube(seed, { collectGarbage: true });
  const deps: DispatchDeps = {
    log: createLogger({ level: "silent" }),
    kube: async () => kube,
    recorder: async () => ({ record: async () => undefined }),
  };
  const pingSource = (name: string, namespace = ns) => kube.get<PingSourceObject>(pingSourceKey(name, namespace));
  const deliver = (fn: OperatorFunction, ce: CloudEvent<unknown>) =>
    deliverWithRetries(fn, ce, deps, { signal: new AbortController().signal, policy: { retries: 3, backoffMs: 1 } });
  return { kube, deps, pingSource, deliver };
}

const clusterChanged = (cluster: Cluster) =>
  clusterEvent({ namespace: ns }, { metadata: { name: cluster.metadata.name, namespace: ns, generation: 99 } });

/** One failure of the given kind on the first apply, then the API server is itself again. */
function failOnce(kube: ReturnType<typeof memoryKube>, code: 409 | 503): void {
  const real = kube.apply.bind(kube);
  let failed = false;
  kube.apply = async <T extends KubeObject>(object: T, fieldManager: string): Promise<T> => {
    if (failed) return real(object, fieldManager);
    failed = true;
    throw new KubeRequestError(code, code === 409 ? "Conflict" : "ServiceUnavailable", "once");
  };
}

describe("render-cluster's schedules", () => {
  const cluster = (meta: Partial<Cluster["metadata"]> = {}) =>
    demoCluster({}, { namespace: ns, annotations: { [RENDER_FAILURE_REASON_ANNOTATION]: "TrustRefused" }, ...meta });
  const leftOver = (owner: KubeObject) => [existing("demo-render-poll", "render-cluster", owner)];

  it("leaves no tick behind for a NatsCluster that is gone", async () => {
    const { pingSource, deliver } = world(leftOver(cluster()));
    expect((await deliver(renderCluster, clusterChanged(cluster()))).kind).toBe("skipped");
    expect(await pingSource("demo-render-poll")).toBeUndefined();
  });

  it("leaves no tick behind for a NatsCluster being deleted", async () => {
    const deleting = cluster({ deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["someone.else/hold"] });
    const { pingSource, deliver } = world([deleting, ...leftOver(deleting)]);
    expect((await deliver(renderCluster, clusterChanged(deleting))).kind).toBe("skipped");
    expect(await pingSource("demo-render-poll")).toBeUndefined();
  });

  it.each([
    ["done at once", undefined],
    ["done after a conflict", 409],
    ["done after a transient failure", 503],
  ] as const)(
    "drops the render poll once nothing is waited for (%s) and keeps no tick for the route certificate",
    async (_path, failure) => {
      const { kube, pingSource, deliver } = world([cluster(), ...leftOver(cluster())]);
      if (failure) failOnce(kube, failure);
      expect((await deliver(renderCluster, clusterChanged(cluster()))).kind).toBe("done");
      expect(await pingSource("demo-render-poll")).toBeUndefined();
      expect(await pingSource("demo-routes-renewal")).toBeUndefined();
    },
  );
});

describe("step-rollout's schedule", () => {
  // Nothing answers there: no server reports.
  const stepRollout = createStepRollout({ monitor: () => "http://127.0.0.1:9" });
  const tick = existing.bind(undefined, "demo-rollout", "step-rollout");

  it("goes with a NatsCluster that is gone (owned by it, the garbage collector ends it)", async () => {
    const gone = demoCluster({}, { namespace: ns });
    const { kube, pingSource, deliver } = world([gone, tick(gone)]);
    await kube.delete({ apiVersion: gone.apiVersion, kind: gone.kind, namespace: ns, name: "demo" });
    expect((await deliver(stepRollout, clusterChanged(gone))).kind).toBe("skipped");
    expect(await pingSource("demo-rollout")).toBeUndefined();
  });

  it("polls in UTC while a deletion waits for the servers, and goes once the finalizer is released", async () => {
    const deleting = demoCluster(
      {},
      { namespace: ns, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [FINALIZERS.jetstreamData] },
    );
    const { kube, pingSource, deliver } = world([deleting]);
    expect((await deliver(stepRollout, clusterChanged(deleting))).kind).toBe("done");
    expect((await pingSource("demo-rollout"))?.spec).toMatchObject({
      schedule: "*/10 * * * * *",
      timezone: "UTC",
      ceOverrides: { extensions: { target: "step-rollout" } },
    });
    const current = await kube.get<Cluster>({
      apiVersion: deleting.apiVersion,
      kind: "NatsCluster",
      namespace: ns,
      name: "demo",
    });
    await kube.patch(
      { apiVersion: deleting.apiVersion, kind: "NatsCluster", namespace: ns, name: "demo" },
      { metadata: { annotations: { ...current?.metadata.annotations, [CLUSTER_ANNOTATIONS.forceDelete]: "" } } },
      "merge",
    );
    expect((await deliver(stepRollout, clusterChanged(deleting))).kind).toBe("done");
    expect(await pingSource("demo-rollout")).toBeUndefined();
  });

  it("keeps polling in UTC while a rollout moves (a scale-down waiting for the cluster to settle)", async () => {
    const three = demoCluster({}, { namespace: ns, finalizers: [FINALIZERS.jetstreamData] });
    const { kube, pingSource, deliver } = world([three]);
    await deliver(renderCluster, clusterChanged(three));
    const key = { apiVersion: three.apiVersion, kind: "NatsCluster", namespace: ns, name: "demo" };
    await kube.patch(key, { spec: { replicas: 1 } }, "merge");
    const outcome = await deliver(stepRollout, clusterChanged(three));
    expect(outcome).toMatchObject({ kind: "done", summary: expect.stringContaining("waiting for Settled") });
    expect((await pingSource("demo-rollout"))?.spec).toMatchObject({ schedule: "*/10 * * * * *", timezone: "UTC" });
  });
});

describe("sync-stream's namespace schedules", () => {
  const team = "payments";
  const stream = {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name: "orders", namespace: team, uid: "uid-orders", generation: 1 },
    spec: { name: "ORDERS", subjects: ["orders.>"], connection: { name: "missing" } },
  } as KubeObject;
  const streamChanged = clusterEvent(
    { namespace: team, kind: "NatsStream", apiversion: stream.apiVersion, name: "orders" },
    stream,
  );
  const tickOf = (check: "settle") =>
    pingEvent(team, `sync-stream-${check}`, {
      data: JSON.stringify({ check, namespace: team }),
      ceOverrides: { extensions: { target: "sync-stream" } },
    });

  it("asks for no schedule in the namespace for an object that is not unsettled (drift is checked on the resync tick)", async () => {
    const { pingSource, deps } = world([stream]);
    await dispatch(syncStream, streamChanged, deps);
    const outcome = await dispatch(syncStream, streamChanged, deps);
    expect(["done", "retry"]).toContain(outcome.kind);
    expect(await pingSource("sync-stream-settle", team)).toBeUndefined();
    expect(await pingSource("sync-stream-drift", team)).toBeUndefined();
  });

  it("drops the settle check on a settle tick that finds the namespace empty (the last object gone)", async () => {
    const { pingSource, deps } = world([existing("sync-stream-settle", "sync-stream", undefined, team)]);
    expect((await dispatch(syncStream, tickOf("settle"), deps)).kind).toBe("done");
    expect(await pingSource("sync-stream-settle", team)).toBeUndefined();
  });

  it("drops the settle check once no object there is unsettled", async () => {
    const { pingSource, deps } = world([stream, existing("sync-stream-settle", "sync-stream", undefined, team)]);
    expect((await dispatch(syncStream, tickOf("settle"), deps)).kind).toBe("done");
    expect(await pingSource("sync-stream-settle", team)).toBeUndefined();
  });
});
