import { describe, expect, it } from "@jest/globals";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { clusterEvent } from "../../test/support/events.ts";
import { KubeRequestError } from "../kube/errors.ts";
import type { KubeObject } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import { pingSourceFor, type PingSourceObject } from "./schedule-source.ts";
import { dispatch, type DispatchDeps } from "./dispatch.ts";
import type { OperatorFunction } from "./function.ts";
import { conflict, done, refused, retry, skipped, withSchedules, type Outcome } from "./outcome.ts";
import { cronOf, keepPolling, mergeSchedules, type PingSchedule, stopPolling } from "./schedule.ts";

const owner: KubeObject = {
  apiVersion: "cluster.nats-operator.io/v1beta1",
  kind: "NatsCluster",
  metadata: { name: "demo", namespace: "team-a", uid: "uid-demo", generation: 1 },
};
const poll: PingSchedule = {
  namespace: "team-a",
  name: "demo-poll",
  target: "scripted",
  work: { cluster: "demo" },
  scope: { kind: "object", owner },
};
const shared: PingSchedule = {
  namespace: "team-a",
  name: "team-drift",
  target: "scripted",
  work: { check: "drift" },
  scope: { kind: "namespace" },
};
const pingSourceKey = (name: string) => ({
  apiVersion: "sources.knative.dev/v1",
  kind: "PingSource",
  namespace: "team-a",
  name,
});

function setup(answer: () => Outcome, seed: KubeObject[] = []) {
  const kube = memoryKube([owner, ...seed]);
  const fn: OperatorFunction = {
    name: "scripted",
    kinds: ["NatsCluster.cluster.nats-operator.io"],
    handlesPings: true,
    handle: async () => answer(),
  };
  const deps: DispatchDeps = {
    log: createLogger({ level: "silent" }),
    kube: async () => kube,
    recorder: async () => ({ record: async () => undefined }),
  };
  const event = () => clusterEvent({}, { metadata: { name: "demo", namespace: "team-a", generation: 2 } });
  const pingSource = (name: string) => kube.get<PingSourceObject>(pingSourceKey(name));
  return { kube, fn, deps, event, pingSource };
}

describe("the schedules an outcome asks for", () => {
  it.each([
    ["done", done("nothing moves")],
    ["skipped", skipped("gone")],
    ["conflict", conflict("someone else claimed it")],
    ["retry", retry("NATS unreachable")],
    ["refused", refused("422")],
  ])("a %s outcome saying no poll leaves no PingSource", async (_kind, outcome) => {
    const { fn, deps, event, pingSource } = setup(
      () => withSchedules(outcome, [stopPolling(poll)]),
      [pingSourceFor(poll, "*/10 * * * * *")],
    );
    expect(await pingSource("demo-poll")).toBeDefined();
    expect((await dispatch(fn, event(), deps)).kind).toBe(outcome.kind);
    expect(await pingSource("demo-poll")).toBeUndefined();
  });

  it.each([
    ["done", done("moving")],
    ["conflict", conflict("someone else claimed it")],
    ["retry", retry("NATS unreachable")],
  ])("a %s outcome asking for a poll gets a PingSource ticking in UTC, owned by its object", async (_k, outcome) => {
    const { fn, deps, event, pingSource } = setup(() => withSchedules(outcome, [keepPolling(poll, { every: "10s" })]));
    await dispatch(fn, event(), deps);
    const source = await pingSource("demo-poll");
    expect(source?.spec).toMatchObject({
      schedule: "*/10 * * * * *",
      timezone: "UTC",
      data: JSON.stringify({ cluster: "demo" }),
      ceOverrides: { extensions: { target: "scripted" } },
    });
    expect(source?.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: "uid-demo", controller: true })]);
  });

  it("writes nothing when the PingSource already says what the decision asks", async () => {
    const { kube, fn, deps, event } = setup(() => withSchedules(done(), [keepPolling(poll, { every: "10s" })]));
    await dispatch(fn, event(), deps);
    await dispatch(fn, event(), deps);
    expect(kube.writes.filter((w) => w.includes("PingSource"))).toEqual(["apply PingSource demo-poll"]);
  });

  it("adds UTC to a PingSource written before it carried a zone", async () => {
    const { timezone: _zone, ...spec } = pingSourceFor(poll, "*/10 * * * * *").spec;
    const withoutZone: PingSourceObject = { ...pingSourceFor(poll, "*/10 * * * * *"), spec };
    const { kube, fn, deps, event, pingSource } = setup(
      () => withSchedules(done(), [keepPolling(poll, { every: "10s" })]),
      [withoutZone],
    );
    await dispatch(fn, event(), deps);
    expect((await pingSource("demo-poll"))?.spec.timezone).toBe("UTC");
    expect(kube.writes.filter((w) => w.includes("PingSource"))).toEqual(["apply PingSource demo-poll"]);
  });

  it("applies a namespace-wide schedule once per process, and again after a drop", async () => {
    let decision = keepPolling(shared, { cron: "*/10 * * * *" });
    const { kube, fn, deps, event, pingSource } = setup(() => withSchedules(done(), [decision]));
    await Promise.all([dispatch(fn, event(), deps), dispatch(fn, event(), deps)]);
    await dispatch(fn, event(), deps);
    expect(kube.writes.filter((w) => w.includes("PingSource"))).toEqual(["apply PingSource team-drift"]);
    expect((await pingSource("team-drift"))?.metadata.ownerReferences).toBeUndefined();
    decision = stopPolling(shared);
    await dispatch(fn, event(), deps);
    expect(await pingSource("team-drift")).toBeUndefined();
    decision = keepPolling(shared, { cron: "*/10 * * * *" });
    await dispatch(fn, event(), deps);
    expect(await pingSource("team-drift")).toBeDefined();
  });

  it("leaves a schedule the outcome does not name as it is", async () => {
    const { fn, deps, event, pingSource } = setup(() => done(), [pingSourceFor(poll, "*/10 * * * * *")]);
    await dispatch(fn, event(), deps);
    expect(await pingSource("demo-poll")).toBeDefined();
  });

  it("retries the event when an object's PingSource cannot be written, and only logs it for a namespace's", async () => {
    const { kube, fn, deps, event } = setup(() =>
      withSchedules(done(), [keepPolling(poll, { every: "10s" }), keepPolling(shared, { cron: "*/10 * * * *" })]),
    );
    kube.apply = async () => {
      throw new KubeRequestError(503, "ServiceUnavailable", "etcd leader changed");
    };
    expect((await dispatch(fn, event(), deps)).kind).toBe("retry");
    const {
      kube: kube2,
      fn: fn2,
      deps: deps2,
      event: event2,
    } = setup(() => withSchedules(done(), [keepPolling(shared, { cron: "*/10 * * * *" })]));
    kube2.apply = kube.apply;
    expect((await dispatch(fn2, event2(), deps2)).kind).toBe("done");
  });
});

describe("polls", () => {
  it.each([
    [{ every: "10s" } as const, "*/10 * * * * *"],
    [{ every: "1s" } as const, "* * * * * *"],
    [{ every: "10m" } as const, "*/10 * * * *"],
    [{ cron: "46 13 1 8 *" }, "46 13 1 8 *"],
  ])("%j ticks on %s", (given, cron) => {
    expect(cronOf(given)).toBe(cron);
  });

  it("takes the last word on each PingSource when several reconciles answer together", () => {
    const merged = mergeSchedules(
      [keepPolling(shared, { cron: "*/10 * * * *" }), keepPolling(poll, { every: "10s" })],
      [stopPolling(shared)],
    );
    expect(merged).toEqual([keepPolling(poll, { every: "10s" }), stopPolling(shared)]);
  });
});
