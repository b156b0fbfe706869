// render-cluster's deliveries lost to the API server's faults, recovered by the resync sweep. A
// NatsCluster's observedGeneration is step-rollout's to write: it moves on whether or not
// render-cluster rendered that generation, so the sweep must see render-cluster's own unfinished
// work: a render failure it recorded, or a record of its inputs taken at an older generation.
import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import { RENDER_FAILURE_ANNOTATION } from "../../shared/api/index.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { ObjectKey } from "../../shared/kube/object.ts";
import { dispatch, type DispatchDeps } from "../../shared/runtime/dispatch.ts";
import { currentVersions, digestAt, parseRecord, recordOf } from "../../shared/runtime/inputs.ts";
import { RESYNC_WORK } from "../../shared/runtime/resync.ts";
import { seededRandom } from "../integration/safety/support/seed.ts";
import { createLogger } from "../../shared/telemetry/logger.ts";
import { renderCluster } from "../../functions/render-cluster/index.ts";
import { API_FAILED_FOR_NOW } from "../../functions/render-cluster/failure-annotations.ts";
import { type Cluster, readCluster } from "../../functions/cluster/index.ts";
import { demoCluster } from "../fixtures/cluster/clusters.ts";
import { clusterEvent } from "../support/events.ts";
import { memoryKube } from "../support/memory-kube.ts";

const ns = "nats-system";

const resyncTick = () =>
  new CloudEvent<unknown>({
    id: "tick-1",
    type: "dev.knative.sources.ping",
    source: "/apis/v1/namespaces/nats-operator/pingsources/render-cluster-resync",
    datacontenttype: "application/json",
    target: "render-cluster",
    data: RESYNC_WORK,
  });

/**
 * What the API server answers 503 to: the render's GETs of one kind, and the failure's own patch;
 * and `share` of every request failed as a loaded one fails them (a third each 429, 503, and a
 * write applied whose answer is lost), by `random`.
 */
interface Faults {
  failingGets: string | undefined;
  clusterPatch: boolean;
  share: number;
  random: () => number;
}

const WRITES = new Set(["apply", "applyStatus", "replaceStatus", "replace", "patch", "create", "delete"]);

/** `kube` failing `faults.share` of its requests, as test/integration/safety/support/api-faults.ts does. */
function failingShare(kube: Kube, faults: Faults): Kube {
  const methods = Object.keys(kube).filter((k) => typeof kube[k as keyof Kube] === "function") as (keyof Kube)[];
  return Object.fromEntries(
    methods.map((method) => [
      method,
      async (...args: unknown[]) => {
        const roll = faults.random() / faults.share;
        if (roll < 1 / 3) throw new KubeRequestError(429, "TooManyRequests", `${method}: too many requests`);
        if (roll < 2 / 3) throw new KubeRequestError(503, "ServiceUnavailable", `${method}: unavailable`);
        const answer = await (kube[method] as (...a: unknown[]) => Promise<unknown>)(...args);
        if (roll < 1 && WRITES.has(method)) throw new KubeRequestError(0, "NetworkError", `${method}: timed out`);
        return answer;
      },
    ]),
  ) as unknown as Kube;
}

function world() {
  const kube = memoryKube([demoCluster({}, { namespace: ns })], { collectGarbage: true });
  const faults: Faults = { failingGets: undefined, clusterPatch: false, share: 0, random: Math.random };
  const unavailable = (what: string) => new KubeRequestError(503, "ServiceUnavailable", `${what}: unavailable`);
  const faulty: Kube = {
    ...failingShare(kube, faults),
    get: async (key: ObjectKey) => {
      if (key.kind === faults.failingGets) throw unavailable(`GET ${key.kind} ${key.name}`);
      return failingShare(kube, faults).get(key);
    },
    patch: async (key, patch, type) => {
      if (faults.clusterPatch && key.kind === "NatsCluster") throw unavailable(`PATCH natsclusters/${key.name}`);
      return failingShare(kube, faults).patch(key, patch, type);
    },
  } as Kube;
  const deps: DispatchDeps = {
    log: createLogger({ level: "silent" }),
    kube: async () => faulty,
    recorder: async () => ({ record: async () => undefined }),
    sweepPatience: { attempts: 4, backoffMs: 1, windowMs: 10_000 },
  };
  const read = async (): Promise<Cluster> => {
    const cluster = await readCluster(kube, ns, "demo");
    if (!cluster) throw new Error("NatsCluster demo is gone");
    return cluster;
  };
  const changed = async () => dispatch(renderCluster, clusterEvent({ namespace: ns }, await read()), deps);
  /** A server's StatefulSet changed (its pod restarted): the cluster is rendered again, at the same generation. */
  const serverChanged = () =>
    dispatch(
      renderCluster,
      clusterEvent(
        { namespace: ns, kind: "StatefulSet", apiversion: "apps/v1", name: "demo-0" },
        { metadata: { name: "demo-0", namespace: ns } },
      ),
      deps,
    );
  /** The first render, and the one after it that records the objects it created as its inputs. */
  const rendered = async () => {
    await changed();
    await changed();
    await observed();
  };
  /** A new generation of the spec (the servers' memory), as `kubectl apply` makes it. */
  const edit = async (memory: string) => {
    const cluster = await read();
    await kube.patch(
      { apiVersion: cluster.apiVersion, kind: cluster.kind, namespace: ns, name: "demo" },
      {
        spec: { ...cluster.spec, resources: { requests: { cpu: "1", memory }, limits: { memory } } },
        metadata: { generation: (cluster.metadata.generation ?? 1) + 1 },
      },
      "merge",
    );
  };
  /** step-rollout's status write: the generation observed, the servers Ready. */
  const observed = async () => {
    const cluster = await read();
    await kube.replaceStatus({
      ...cluster,
      status: {
        ...cluster.status,
        observedGeneration: cluster.metadata.generation,
        conditions: [{ type: "Ready", status: "True", reason: "AllServersReady", lastTransitionTime: "" }],
      },
    } as Cluster);
  };
  return {
    kube,
    faults,
    deps,
    read,
    changed,
    serverChanged,
    rendered,
    edit,
    observed,
    sweep: () => dispatch(renderCluster, resyncTick(), deps),
  };
}

describe("render-cluster's resync after a render lost to the API server", () => {
  it("delivers a NatsCluster whose render failed at its new generation, though step-rollout observed that generation", async () => {
    const w = world();
    await w.rendered();
    await w.edit("2Gi");
    w.faults.failingGets = "Service";
    expect((await w.changed()).kind).toBe("retry");
    expect((await w.read()).metadata.annotations?.[RENDER_FAILURE_ANNOTATION]).toBe(API_FAILED_FOR_NOW);
    await w.observed();
    w.faults.failingGets = undefined;

    expect(await w.sweep()).toMatchObject({ kind: "done", summary: expect.stringContaining("0 not done") });
    expect((await w.read()).metadata.annotations?.[RENDER_FAILURE_ANNOTATION] ?? null).toBeNull();
  });

  it("delivers it too when the failure could not even be recorded", async () => {
    const w = world();
    await w.rendered();
    await w.edit("2Gi");
    w.faults.failingGets = "Service";
    w.faults.clusterPatch = true;
    expect((await w.changed()).kind).toBe("retry");
    expect((await w.read()).metadata.annotations?.[RENDER_FAILURE_ANNOTATION]).toBeUndefined();
    await w.observed();
    w.faults.failingGets = undefined;
    w.faults.clusterPatch = false;

    const writes = w.kube.writes.length;
    expect(await w.sweep()).toMatchObject({ kind: "done", summary: expect.stringContaining("1 whose inputs changed") });
    expect(w.kube.writes.slice(writes)).toContain("status NatsCluster demo");
  });

  it("delivers a NatsCluster whose render failed at a generation it had rendered before, until the render gets through", async () => {
    const w = world();
    await w.rendered();
    w.faults.failingGets = "Service";
    expect((await w.serverChanged()).kind).toBe("retry");
    expect(await w.sweep()).toMatchObject({
      summary: expect.stringContaining("1 not at rest delivered, 0 whose inputs changed delivered, 1 not done"),
    });
    w.faults.failingGets = undefined;
    expect(await w.sweep()).toMatchObject({
      summary: expect.stringContaining("1 not at rest delivered, 0 whose inputs changed delivered, 0 not done"),
    });
    expect(await w.sweep()).toMatchObject({
      summary: expect.stringContaining("0 not at rest delivered, 0 whose inputs changed delivered, 0 not done"),
    });
  });

  it("records a run of the API server's failures for now once, whichever request failed", async () => {
    const w = world();
    await w.rendered();
    w.faults.failingGets = "Service";
    expect((await w.serverChanged()).kind).toBe("retry");
    const recorded = w.kube.writes.length;
    w.faults.failingGets = "ConfigMap";
    expect((await w.serverChanged()).kind).toBe("retry");
    // Another failing request, the same failure: no write, so no event to feed another delivery.
    expect(w.kube.writes.slice(recorded)).toEqual([]);
    expect((await w.read()).metadata.annotations?.[RENDER_FAILURE_ANNOTATION]).toBe(API_FAILED_FOR_NOW);
  });

  it("renders the new generation within a few sweeps while a tenth of its requests fail", async () => {
    const sweepsNeeded: number[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const w = world();
      await w.rendered();
      await w.edit("2Gi");
      w.faults.failingGets = "Service";
      expect((await w.changed()).kind).toBe("retry");
      await w.observed();
      w.faults.failingGets = undefined;
      w.faults.share = 0.1;
      w.faults.random = seededRandom(seed);
      let sweeps = 0;
      // Rendered at generation 2: no failure shown, and a record of inputs that matches the world
      // at that generation (a render whose record write failed is not done).
      const rendered = async () => {
        const cluster = await w.read();
        const record = parseRecord(recordOf(cluster, "render-cluster"));
        if (RENDER_FAILURE_ANNOTATION in (cluster.metadata.annotations ?? {}) || !record) return false;
        const versions = await currentVersions(
          record.refs,
          (apiVersion, kind, namespace) => w.kube.list({ apiVersion, kind, namespace }),
          (ref) => w.kube.get(ref),
          () => false,
        );
        return digestAt(record, versions, cluster.metadata.generation) === record.digest;
      };
      do {
        await w.sweep();
        // step-rollout's status again: the memory API server's apply of render-cluster's fields drops the rest.
        await w.observed();
        sweeps++;
      } while (sweeps < 30 && !(await rendered()));
      sweepsNeeded.push(sweeps);
      // With no fault, a sweep finds nothing to do.
      w.faults.share = 0;
      expect(await w.sweep()).toMatchObject({ summary: expect.stringContaining("0 not at rest delivered, 0 whose") });
    }
    expect(Math.max(...sweepsNeeded)).toBeLessThan(30);
  });
});
