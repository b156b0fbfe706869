// Story 1, steps 01 and 02: a three-server JetStream cluster at rest, then a memory change
// rolled one server at a time while an R3 stream keeps taking publishes.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startEnvironment, type Environment } from "./support/environment.ts";
import { startOperator, type RunningOperator } from "./support/operator.ts";
import { condition, quickstart, waitAtRest } from "./support/natscluster.ts";

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
    const cluster = await waitAtRest(env.kube, namespace, 240_000);
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
});
