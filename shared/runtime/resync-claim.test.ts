import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { Kube, ListQuery } from "../kube/client.ts";
import { KubeRequestError } from "../kube/errors.ts";
import type { KubeObject } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { dispatch, type DispatchDeps } from "./dispatch.ts";
import type { OperatorFunction } from "./function.ts";
import { done } from "./outcome.ts";
import { RESYNC_WORK } from "./resync.ts";
import { LAST_RESYNC_ANNOTATION } from "./resync-cap.ts";

const HOME = "nats-operator";

const pingSource = (namespace = HOME, name = "sync-stream-resync"): KubeObject =>
  ({
    apiVersion: "sources.knative.dev/v1",
    kind: "PingSource",
    metadata: { name, namespace },
    spec: { schedule: "*/10 * * * *", timezone: "UTC", data: '{"resync":true}', sink: {} },
  }) as KubeObject;

const tick = (from = `${HOME}/sync-stream-resync`) => {
  const [namespace, name] = from.split("/");
  return new CloudEvent<unknown>({
    id: `tick-${Math.random()}`,
    type: "dev.knative.sources.ping",
    source: `/apis/v1/namespaces/${namespace}/pingsources/${name}`,
    datacontenttype: "application/json",
    target: "sync-stream",
    data: RESYNC_WORK,
  });
};

const fn: OperatorFunction = {
  name: "sync-stream",
  kinds: ["NatsStream.jetstream.nats-operator.io"],
  owns: ["NatsStream.jetstream.nats-operator.io"],
  handlesPings: true,
  handle: async () => done("reconciled"),
};

/** A function's process (an instance) over one API server; `sweeps` counts the listings of its kind. */
function cluster(seed: KubeObject[] = [pingSource()], options: { failListings?: number } = {}) {
  const memory = memoryKube(seed);
  let failing = options.failListings ?? 0;
  const counts = { sweeps: 0, reads: 0 };
  const kube: Kube = {
    ...memory,
    get: async <T extends KubeObject>(key: Parameters<Kube["get"]>[0]) => {
      counts.reads++;
      return memory.get<T>(key);
    },
    list: async <T extends KubeObject>(query: ListQuery) => {
      if (query.kind === "NatsStream") counts.sweeps++;
      if (failing-- > 0) throw new KubeRequestError(503, "ServiceUnavailable", "the server is currently unavailable");
      return memory.list<T>(query);
    },
  };
  let clock = new Date("2026-12-07T10:20:00.250Z");
  const instance = (): DispatchDeps => ({
    log: createLogger({ level: "silent" }),
    kube: async () => kube,
    recorder: async () => ({ record: async () => undefined }),
    sweepPatience: { attempts: 1, backoffMs: 1, windowMs: 1 },
    now: () => clock,
    operatorNamespace: () => HOME,
  });
  return {
    memory,
    counts,
    instance,
    advance: (ms: number) => (clock = new Date(clock.getTime() + ms)),
    annotation: async (namespace = HOME) =>
      (
        await memory.get({
          apiVersion: "sources.knative.dev/v1",
          kind: "PingSource",
          namespace,
          name: "sync-stream-resync",
        })
      )?.metadata.annotations?.[LAST_RESYNC_ANNOTATION],
  };
}

describe("a resync tick in a pod", () => {
  it("sweeps once per firing however many ticks arrive, and again at the next firing", async () => {
    const { counts, instance, advance, annotation } = cluster();
    const deps = instance();
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push((await dispatch(fn, tick(), deps)).kind);
    expect(outcomes).toEqual(["done", "skipped", "skipped", "skipped", "skipped"]);
    expect(counts.sweeps).toBe(1);
    expect(await annotation()).toBe("2026-12-07T10:20:00.000Z");

    advance(10 * 60_000);
    expect((await dispatch(fn, tick(), deps)).kind).toBe("done");
    expect(counts.sweeps).toBe(2);
  });

  it("lets one of several instances sweep a firing they are all handed at once", async () => {
    const { counts, instance } = cluster();
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => dispatch(fn, tick(), instance())));
    expect(outcomes.map((o) => o.kind).sort()).toEqual(["done", "skipped", "skipped", "skipped"]);
    expect(counts.sweeps).toBe(1);
  });

  it("costs one read and one write of the PingSource for a firing at rest", async () => {
    const { memory, counts, instance } = cluster();
    await dispatch(fn, tick(), instance());
    expect({ reads: counts.reads, writes: memory.writes }).toEqual({
      reads: 1,
      writes: ["patch PingSource sync-stream-resync"],
    });
  });

  it("sweeps nothing for a tick naming another PingSource, or one that does not exist", async () => {
    const { counts, instance, annotation } = cluster([pingSource(), pingSource("team-a")]);
    expect(await dispatch(fn, tick("team-a/sync-stream-resync"), instance())).toMatchObject({ kind: "skipped" });
    expect(await dispatch(fn, tick(`${HOME}/rollout-demo`), instance())).toMatchObject({ kind: "skipped" });
    expect(counts.sweeps).toBe(0);
    expect(await annotation("team-a")).toBeUndefined();
  });

  it("unclaims a firing whose sweep failed, so the Broker's retry of the tick sweeps it", async () => {
    const { counts, instance, annotation } = cluster([pingSource()], { failListings: 1 });
    const deps = instance();
    expect((await dispatch(fn, tick(), deps)).kind).toBe("retry");
    expect(await annotation()).toBeUndefined();
    expect((await dispatch(fn, tick(), deps)).kind).toBe("done");
    expect(counts.sweeps).toBe(2);
  });
});
