import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { reportsOf } from "../../../test/fixtures/cluster/jsz.ts";
import { type Cluster, planCluster } from "../../cluster/index.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import type { Observed, StatefulSet } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const REVISION = "cluster.nats-operator.io/config-revision";
const memory = (value: string) => ({ resources: { requests: { cpu: "1", memory: value }, limits: { memory: value } } });

/** An API server holding `demo` (now asking for 5Gi) and its servers as rendered at 4Gi, Ready. */
function world() {
  const running = planCluster({ cluster: demoCluster() });
  const statefulSets = running.servers.map((s): StatefulSet => ({
    ...(s.statefulSet as StatefulSet),
    status: { observedGeneration: 1, readyReplicas: 1, updatedReplicas: 1 },
  }));
  const cluster = demoCluster(memory("5Gi"), { finalizers: ["cluster.nats-operator.io/jetstream-data"] });
  const kube = memoryKube([cluster, ...statefulSets, ...running.servers.map((s) => s.configMap)] as KubeObject[]);
  const events: string[] = [];
  const recorder = {
    record: async (_: KubeObject, type: string, reason: string, note: string) =>
      void events.push(`${type} ${reason}: ${note}`),
  };
  const observe = async (): Promise<Observed> => {
    const current = (await kube.get<Cluster>({ ...cluster, namespace: "nats-system", name: "demo" })) as Cluster;
    const stored = await kube.list<StatefulSet>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace: "nats-system",
    });
    return {
      cluster: current,
      plan: planCluster({ cluster: current }),
      certificatesReady: true,
      statefulSets: new Map(stored.map((s) => [s.metadata.name, s])),
      configMaps: new Map(running.servers.map((s) => [s.configMap.metadata.name, s.configMap])),
      foreign: [],
      pods: new Map(),
      failedCreates: new Map(),
      reports: reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", revision: running.revision }),
      systemUser: { kind: "none" },
    };
  };
  const revisions = async () =>
    new Map(
      (await kube.list<StatefulSet>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace: "nats-system" })).map(
        (s) => [s.metadata.name, s.spec.template.metadata?.annotations?.[REVISION]],
      ),
    );
  return { kube, recorder, events, observe, revisions };
}

describe("step-rollout acting on its decision", () => {
  it("restarts the one server it decided on once its status write has claimed the step", async () => {
    const { kube, recorder, events, observe, revisions } = world();
    const before = await revisions();
    const observed = await observe();
    const decision = decide(observed, NOW);
    expect(await act(kube, recorder, observed, decision, NOW)).toEqual({ kind: "done" });
    const after = await revisions();
    expect([...after].filter(([name, revision]) => revision !== before.get(name)).map(([name]) => name)).toEqual([
      "demo-2",
    ]);
    expect(events).toEqual(["Normal RolloutStep: restarting demo-2"]);
    const cluster = await kube.get<Cluster>({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      namespace: "nats-system",
      name: "demo",
    });
    expect(cluster?.status?.rollout?.current).toBe("demo-2");
  });

  it("takes no step and records nothing when another delivery claimed first", async () => {
    const { kube, recorder, events, observe, revisions } = world();
    const before = await revisions();
    const [first, second] = [await observe(), await observe()];
    expect(await act(kube, recorder, first, decide(first, NOW), NOW)).toEqual({ kind: "done" });
    const stepped = await revisions();
    expect(await act(kube, recorder, second, decide(second, NOW), NOW)).toEqual({ kind: "conflict" });
    expect(await revisions()).toEqual(stepped);
    expect([...stepped].filter(([name, revision]) => revision !== before.get(name))).toHaveLength(1);
    expect(events).toHaveLength(1);
  });
});
