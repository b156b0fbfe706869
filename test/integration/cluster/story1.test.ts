// harness: real node
// Story 1, steps 01 and 02: a three-server JetStream cluster at rest, then a memory change
// rolled one server at a time while an R3 stream keeps taking publishes.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { condition, clusterKey, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { samplePods } from "./support/sampler.ts";
import { startPublisher } from "./support/publisher.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;

beforeAll(async () => {
  env = await startEnvironment();
  operator = await startOperator(env.transport);
  namespace = await env.namespace("story1");
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("story 1: quickstart", () => {
  it("step 01: three servers come to rest with the expected status", async () => {
    await env.kube.create(quickstart(namespace));
    const cluster = await waitAtRest(env.kube, namespace, 240_000).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-40).join(""));
      throw error;
    });
    const status = cluster.status ?? {};
    expect(status).toMatchObject({
      observedGeneration: 1,
      version: "2.15.2",
      replicas: 3,
      readyReplicas: 3,
      endpoints: { client: `nats://demo.${namespace}.svc:4222`, monitor: `http://demo-headless.${namespace}.svc:8222` },
      config: { appliedBy: "Restart" },
      jetstream: { limits: { maxMemoryStore: "192Mi", maxFileStore: "19Gi" } },
    });
    expect(condition(cluster, "Settled")?.message).toBe("every Raft group has a leader and every member is current");
    expect(status.config?.revision).toMatch(/^[0-9a-f]{10}$/);
    expect(status.jetstream?.metaLeader).toMatch(/^demo-[012]$/);
    expect(status.servers?.map((s) => [s.name, s.version, s.ready, s.configRevision])).toEqual(
      ["demo-0", "demo-1", "demo-2"].map((name) => [name, "2.15.2", true, status.config?.revision]),
    );
    expect(status.rollout).toBeUndefined();
  }, 300_000);

  it("step 02: a memory change restarts one server at a time, gated on Settled, losing no acknowledged message", async () => {
    const before = await readCluster(env.kube, namespace);
    const servers = [0, 1, 2].map((i) => `nats://demo-${i}-0.demo-headless.${namespace}.svc:4222`);
    const publisher = await startPublisher(servers, "ORDERS", "orders");
    await waitFor("publishes acknowledged", async () => publisher.acked.size > 20, { timeoutMs: 30_000 });
    const sampler = samplePods(env.kube, namespace, "demo", 3);
    const seen: Cluster[] = [];
    const pingSourceKey = { apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace, name: "demo-rollout" };
    let pingSourceSeen = false;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const cluster = await readCluster(env.kube, namespace).catch(() => undefined);
        if (cluster?.status?.rollout) seen.push(cluster);
        if (!pingSourceSeen) pingSourceSeen = (await env.kube.get(pingSourceKey).catch(() => undefined)) !== undefined;
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    await env.kube.patch(
      clusterKey(namespace),
      { spec: { resources: { requests: { cpu: "100m", memory: "512Mi" }, limits: { memory: "512Mi" } } } },
      "merge",
    );
    const ackedBeforeRollout = publisher.acked.size;
    await waitFor("the rollout to start", async () => seen.length > 0, { timeoutMs: 60_000 });
    const after = await waitAtRest(env.kube, namespace, 600_000);
    const ackedDuringRollout = publisher.acked.size - ackedBeforeRollout;
    watching = false;
    await watcher;
    await sampler.stop();
    // A fast rollout is over in seconds; the stream must also take writes once it is at rest.
    const ackedAtRest = publisher.acked.size;
    await waitFor("publishes acknowledged at rest", async () => publisher.acked.size > ackedAtRest + 20, {
      timeoutMs: 60_000,
    });
    await publisher.stop();

    expect(after.status?.config?.revision).not.toBe(before?.status?.config?.revision);
    expect(condition(after, "Progressing")).toMatchObject({ status: "False", reason: "UpToDate" });
    expect(after.status?.rollout).toBeUndefined();
    // One server at a time: never more than one pod not Ready, every server restarted once.
    expect(sampler.maxNotReady).toBeLessThanOrEqual(1);
    expect([...sampler.restarts].sort()).toEqual(["demo-0", "demo-1", "demo-2"]);
    // The mid-rollout status, as the story shows it.
    const mid = seen.find((c) => c.status?.rollout?.current && c.status.rollout.gate);
    expect(mid?.status).toMatchObject({
      observedGeneration: 2,
      config: { appliedBy: "Restart", restartReason: "the StatefulSet spec is restart-only" },
      rollout: {
        targetRevision: after.status?.config?.revision,
        gate: { waitingFor: expect.stringMatching(/^(Settled|Ready|TargetRevision)$/) },
      },
    });
    expect(condition(mid, "Progressing")).toMatchObject({ status: "True", reason: "RollingRestart" });
    expect(condition(mid, "Progressing")?.message).toMatch(
      /^restarting demo-[012] \([123] of 3\); waiting for (Settled|Ready|TargetRevision)$/,
    );
    expect(
      seen.some(
        (c) =>
          condition(c, "Ready")?.reason === "QuorumAvailable" &&
          condition(c, "Ready")?.message === "2 of 3 servers ready",
      ),
    ).toBe(true);
    // The pod runs the new limit.
    const pod = await env.kube.get<
      KubeObject & { spec: { containers: { resources?: { limits?: Record<string, string> } }[] } }
    >({ apiVersion: "v1", kind: "Pod", namespace, name: "demo-0-0" });
    expect(pod?.spec.containers[0]?.resources?.limits?.["memory"]).toBe("512Mi");
    // No acknowledged message is lost.
    expect(ackedDuringRollout).toBeGreaterThan(0);
    expect(await publisher.missing()).toEqual([]);
    await publisher.close();
    // A PingSource pokes step-rollout while the rollout runs, and none is left at rest.
    expect(pingSourceSeen).toBe(true);
    await waitFor("no PingSource at rest", async () => (await env.kube.get(pingSourceKey)) === undefined, {
      timeoutMs: 30_000,
    });
    process.stdout.write(
      `story1 step 02: ${sampler.samples} samples, max not Ready ${sampler.maxNotReady}, restart order ${sampler.restarts.join(", ")}, ${publisher.acked.size} acked (${ackedDuringRollout} during the rollout), ${publisher.failures} failed publishes\n`,
    );
  }, 900_000);
});
