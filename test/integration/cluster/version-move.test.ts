// harness: real node
// A version move between two real nats-server builds (2.15.2 and 2.15.3, both built by the
// harness): one server at a time, status.version moving only once every server reports the new
// version (C13), an R3 stream losing no acknowledged message; and back down again.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { startPublisher, type Publisher } from "./support/publisher.ts";
import { samplePods } from "./support/sampler.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let publisher: Publisher | undefined;

beforeAll(async () => {
  env = await startEnvironment();
  operator = await startOperator(env.transport);
  namespace = await env.namespace("version");
  await env.kube.create(quickstart(namespace));
  await waitAtRest(env.kube, namespace, 240_000);
  const servers = [0, 1, 2].map((i) => `nats://demo-${i}-0.demo-headless.${namespace}.svc:4222`);
  publisher = await startPublisher(servers, "ORDERS", "orders");
  await waitFor("publishes acknowledged", async () => (publisher?.acked.size ?? 0) > 20, { timeoutMs: 30_000 });
}, 400_000);

afterAll(async () => {
  await publisher?.close();
  await operator?.stop();
  await env?.stop();
}, 120_000);

/** Moves the cluster to `version` and records every status seen while the move runs. */
async function moveTo(
  version: string,
): Promise<{ after: Cluster; seen: Cluster[]; maxNotReady: number; restarts: string[] }> {
  const sampler = samplePods(env.kube, namespace, "demo", 3);
  const seen: Cluster[] = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const cluster = await readCluster(env.kube, namespace).catch(() => undefined);
      if (cluster?.status?.rollout) seen.push(cluster);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await env.kube.patch(clusterKey(namespace), { spec: { version } }, "merge");
  await waitFor("the move to start", async () => seen.length > 0, { timeoutMs: 60_000 });
  const after = await waitAtRest(env.kube, namespace, 600_000).catch((error: unknown) => {
    process.stdout.write(operator.log.slice(-40).join(""));
    throw error;
  });
  watching = false;
  await watcher;
  await sampler.stop();
  return { after, seen, maxNotReady: sampler.maxNotReady, restarts: [...sampler.restarts].sort() };
}

describe("version moves", () => {
  it("moves 2.15.2 to 2.15.3 one server at a time; status.version moves only when every server runs 2.15.3", async () => {
    const { after, seen, maxNotReady, restarts } = await moveTo("2.15.3");

    expect(maxNotReady).toBeLessThanOrEqual(1);
    expect(restarts).toEqual(["demo-0", "demo-1", "demo-2"]);
    expect(after.status?.version).toBe("2.15.3");
    expect(after.status?.servers?.map((s) => [s.name, s.version])).toEqual([
      ["demo-0", "2.15.3"],
      ["demo-1", "2.15.3"],
      ["demo-2", "2.15.3"],
    ]);
    // While any server still ran 2.15.2, the cluster's version stayed 2.15.2.
    const mixed = seen.filter((c) => (c.status?.servers ?? []).some((s) => s.version === "2.15.2"));
    expect(mixed.length).toBeGreaterThan(0);
    expect(new Set(mixed.map((c) => c.status?.version))).toEqual(new Set(["2.15.2"]));
    expect(await publisher?.missing()).toEqual([]);
  }, 700_000);

  it("moves back down to 2.15.2 the same way, losing no acknowledged message", async () => {
    const { after, maxNotReady, restarts } = await moveTo("2.15.2");

    expect(maxNotReady).toBeLessThanOrEqual(1);
    expect(restarts).toEqual(["demo-0", "demo-1", "demo-2"]);
    expect(after.status?.version).toBe("2.15.2");
    expect(after.status?.servers?.every((s) => s.version === "2.15.2")).toBe(true);
    await publisher?.stop();
    expect(publisher?.acked.size).toBeGreaterThan(100);
    expect(await publisher?.missing()).toEqual([]);
  }, 700_000);
});
