import { describe, expect, it } from "@jest/globals";
import { RENDER_FAILURE_ANNOTATION } from "../../shared/api/index.ts";
import type { KubeObject } from "../../shared/kube/index.ts";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { type Cluster, readCluster } from "../cluster/index.ts";
import { act, actRouteTls } from "./act.ts";
import { decide, decideRouteTls } from "./decide.ts";
import { observe } from "./observe.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");

/** An API server holding `seed`, and render-cluster's deliveries against it, as index.ts runs them. */
function world(seed: KubeObject[]) {
  const kube = memoryKube(seed);
  const events: string[] = [];
  const recorder = async () => ({
    record: async (_: KubeObject, type: string, reason: string, note: string) =>
      void events.push(`${type} ${reason}: ${note}`),
  });
  const read = async (): Promise<Cluster> => {
    const cluster = await readCluster(kube, "nats-system", "demo");
    if (!cluster) throw new Error("NatsCluster demo is gone");
    return cluster;
  };
  /** One delivery: observe, phase 1 (route TLS), decide, act. */
  const deliver = async (cluster?: Cluster) => {
    const current = cluster ?? (await read());
    let observed = await observe(kube, current);
    const routes = decideRouteTls(observed, NOW);
    if (routes) observed = await actRouteTls(kube, observed, routes, NOW);
    const decision = decide(observed, NOW);
    await act(kube, recorder, current, decision);
    return decision;
  };
  return { kube, events, read, deliver };
}

describe("render-cluster acting on its decision", () => {
  it("writes the route Secrets, the shared objects, each server and the status on the first render, and nothing again", async () => {
    const { kube, read, deliver } = world([demoCluster()]);
    await deliver();
    expect(kube.writes).toEqual([
      "create Secret demo-routes-ca",
      "create Secret demo-routes-tls",
      "apply Service demo",
      "apply Service demo-headless",
      "apply PodDisruptionBudget demo",
      "apply NetworkPolicy demo",
      "apply ConfigMap demo-0-config",
      "create StatefulSet demo-0",
      "apply ConfigMap demo-1-config",
      "create StatefulSet demo-1",
      "apply ConfigMap demo-2-config",
      "create StatefulSet demo-2",
      "status NatsCluster demo",
    ]);
    expect((await read()).status).toMatchObject({ replicas: 3 });
    const before = kube.writes.length;
    await deliver();
    expect(kube.writes.slice(before)).toEqual([]);
  });

  it("records a foreign object's failure and its Warning event once, though two deliveries decided it", async () => {
    const taken: KubeObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "demo", namespace: "nats-system", labels: { owner: "someone-else" } },
    };
    const { kube, events, read, deliver } = world([demoCluster(), taken]);
    const seen = await read();
    await deliver(seen);
    await deliver(seen);
    const message = "not controlled by this NatsCluster, left untouched: Service demo";
    expect((await read()).metadata.annotations?.[RENDER_FAILURE_ANNOTATION]).toBe(message);
    expect(events).toEqual([`Warning ReconcileFailed: ${message}`]);
    expect(kube.writes.filter((w) => w.startsWith("apply Service demo") && !w.includes("headless"))).toEqual([]);
  });
});
