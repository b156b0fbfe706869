// harness: real node
// Pause and force-step, 50 parallel replays of one event during a rollout, and the deletion guard.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { formatPreview, previewChange, stepRollout } from "../../../functions/step-rollout/index.ts";
import { apiServerEvent } from "../../../shared/local/apiserver-event.ts";
import { createKube } from "../../../shared/kube/client.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { processDeps } from "../../../shared/runtime/deps.ts";
import { dispatch } from "../../../shared/runtime/dispatch.ts";
import type { Outcome } from "../../../shared/runtime/outcome.ts";
import { createLogger } from "../../../shared/telemetry/logger.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, condition, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { createOperator } from "../../support/nats-auth.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { startPublisher } from "./support/publisher.ts";
import { samplePods } from "./support/sampler.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator | undefined;
let namespace: string;

const memory = (value: string) => ({
  resources: { requests: { cpu: "100m", memory: value }, limits: { memory: value } },
});
type StatefulSet = KubeObject & { spec: { template: { metadata: { annotations?: Record<string, string> } } } };

async function templateRevisions(name: string): Promise<Map<string, string>> {
  const list = await env.kube.list<StatefulSet>({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    namespace,
    labelSelector: `cluster.nats-operator.io/cluster=${name}`,
  });
  return new Map(
    list.map((s) => [
      s.metadata.name,
      s.spec.template.metadata.annotations?.["cluster.nats-operator.io/config-revision"] ?? "",
    ]),
  );
}

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("controls");
  operator = await startOperator(env.transport);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("rollout controls", () => {
  it("holds a paused rollout before its next step, and force-step restarts the named server at once", async () => {
    await env.kube.create(quickstart(namespace, "paused"));
    await waitAtRest(env.kube, namespace, 240_000, "paused");
    const before = await templateRevisions("paused");
    await env.kube.patch(
      clusterKey(namespace, "paused"),
      { spec: { ...memory("320Mi"), rollout: { paused: true } } },
      "merge",
    );
    const held = await waitFor(
      "RolloutPaused",
      async () => {
        const c = await readCluster(env.kube, namespace, "paused");
        return condition(c, "Progressing")?.reason === "RolloutPaused" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // Highest ordinal first, the meta leader's server last.
    const leader = held.status?.jetstream?.metaLeader;
    const first = ["paused-2", "paused-1", "paused-0"].find((s) => s !== leader);
    expect(condition(held, "Progressing")).toMatchObject({
      status: "False",
      message: `paused before restarting ${first}`,
    });
    await new Promise((r) => setTimeout(r, 3000));
    expect(await templateRevisions("paused")).toEqual(before);

    await env.kube.patch(
      clusterKey(namespace, "paused"),
      { metadata: { annotations: { "cluster.nats-operator.io/force-step": "paused-0" } } },
      "merge",
    );
    await waitFor(
      "paused-0 restarted",
      async () => (await templateRevisions("paused")).get("paused-0") !== before.get("paused-0"),
      { timeoutMs: 60_000 },
    );
    const cleared = await waitFor(
      "force-step cleared",
      async () => {
        const c = await readCluster(env.kube, namespace, "paused");
        return c && c.metadata.annotations?.["cluster.nats-operator.io/force-step"] === undefined ? c : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(cleared.status?.rollout?.pending).toEqual(
      ["paused-2", "paused-1"]
        .filter((s) => s !== cleared.status?.jetstream?.metaLeader)
        .concat(["paused-2", "paused-1"].filter((s) => s === cleared.status?.jetstream?.metaLeader)),
    );
    const after = await templateRevisions("paused");
    expect(after.get("paused-1")).toBe(before.get("paused-1"));
    expect(after.get("paused-2")).toBe(before.get("paused-2"));

    await env.kube.patch(clusterKey(namespace, "paused"), { spec: { rollout: { paused: false } } }, "merge");
    await waitAtRest(env.kube, namespace, 300_000, "paused");
  }, 700_000);

  it("takes one step when the same event is delivered 50 times in parallel", async () => {
    await env.kube.create(quickstart(namespace, "replay"));
    await waitAtRest(env.kube, namespace, 240_000, "replay");
    await operator?.stop();
    operator = undefined;
    const before = await templateRevisions("replay");
    const sampler = samplePods(env.kube, namespace, "replay", 3, 100);
    await env.kube.patch(clusterKey(namespace, "replay"), { spec: memory("384Mi") }, "merge");
    const object = await readCluster(env.kube, namespace, "replay");
    if (!object) throw new Error("replay cluster is gone");
    const ce = apiServerEvent("https://harness", "Resource", "update", object);
    const deps = processDeps(createLogger({ level: "silent" }), async () => createKube(env.transport));
    // Rounds of 50 parallel deliveries of the one event, as a Broker delivering a duplicated event.
    // Another round only while none claimed a step (a server slow to answer its monitor under this
    // load keeps the gate closed). Conflicts are not redelivered once a step is claimed: a
    // redelivery that comes after the restarted server is back and Settled rightly takes the next
    // step, a later decision rather than a second claim of this one.
    const outcomes: Outcome[] = [];
    const claimed = (o: Outcome) => o.kind === "done" && o.summary?.startsWith("restarting") === true;
    for (let round = 0; round < 5 && !outcomes.some(claimed); round++)
      outcomes.push(...(await Promise.all(Array.from({ length: 50 }, () => dispatch(stepRollout, ce, deps)))));
    try {
      await new Promise((r) => setTimeout(r, 5000));
      await sampler.stop();
      const after = await templateRevisions("replay");
      const moved = [...after].filter(([name, revision]) => revision !== before.get(name)).map(([name]) => name);
      const steps = outcomes.filter(claimed);
      process.stdout.write(
        `replay: ${outcomes.length} deliveries, ${outcomes.filter((o) => o.kind === "conflict").length} conflicts, ${steps.length} claimed steps on ${moved.join(", ")}\n`,
      );
      expect(moved).toHaveLength(1);
      expect(sampler.restarts.length).toBeLessThanOrEqual(1);
      expect(sampler.maxNotReady).toBeLessThanOrEqual(1);
      expect(steps).toHaveLength(1);
    } finally {
      operator = await startOperator(env.transport);
    }
    await waitAtRest(env.kube, namespace, 300_000, "replay");
  }, 700_000);

  it("previews a change without acting: a memory change restarts the servers one at a time, the meta leader's last, and added auth is AuthChangeBlocked", async () => {
    const live = await waitAtRest(env.kube, namespace, 300_000, "replay");
    const revisions = await templateRevisions("replay");
    const nats = await createOperator();
    await installOperatorTrust(env.kube, namespace, nats);
    const target = { namespace, name: "replay" };

    const resized = await previewChange(
      env.kube,
      target,
      { ...live, spec: { ...live.spec, ...memory("448Mi") } },
      new Date(),
    );
    const leader = resized.metaLeader;
    expect(leader).toMatch(/^replay-[012]$/);
    expect(resized.restarts.order).toEqual([
      ...["replay-2", "replay-1", "replay-0"].filter((s) => s !== leader),
      leader,
    ]);
    expect(resized.restarts.reason).toBe("the StatefulSet spec is restart-only");
    expect(resized.reloads).toEqual([]);
    expect(resized.blocked).toBeUndefined();
    expect(formatPreview(resized)).toContain(`restart one at a time: ${resized.restarts.order.join(", ")}`);

    const secured = await previewChange(
      env.kube,
      target,
      { ...live, spec: { ...live.spec, auth: operatorModeAuth() } },
      new Date(),
    );
    expect(secured.blocked?.reason).toBe("AuthChangeBlocked");
    expect(formatPreview(secured)).toContain("blocked: AuthChangeBlocked");

    // Nothing was acted on.
    expect(await templateRevisions("replay")).toEqual(revisions);
    expect((await readCluster(env.kube, namespace, "replay"))?.metadata.resourceVersion).toBe(
      live.metadata.resourceVersion,
    );
  }, 300_000);

  it("keeps a NatsCluster holding JetStream data until force-delete", async () => {
    await env.kube.create(quickstart(namespace, "guard"));
    await waitAtRest(env.kube, namespace, 240_000, "guard");
    const servers = [0, 1, 2].map((i) => `nats://guard-${i}-0.guard-headless.${namespace}.svc:4222`);
    const publisher = await startPublisher(servers, "KEEP", "keep");
    await waitFor("a message", async () => publisher.acked.size > 0, { timeoutMs: 30_000 });
    await publisher.stop();
    await publisher.close();
    await env.kube.delete(clusterKey(namespace, "guard"));
    const waiting = await waitFor(
      "Deleting JetStreamDataRemains",
      async () => {
        const c = await readCluster(env.kube, namespace, "guard");
        return condition(c, "Deleting")?.reason === "JetStreamDataRemains" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(waiting, "Deleting")).toMatchObject({ status: "True", message: "1 stream group remain: KEEP" });
    expect(waiting.metadata.finalizers).toContain("cluster.nats-operator.io/jetstream-data");
    await env.kube.patch(
      clusterKey(namespace, "guard"),
      { metadata: { annotations: { "cluster.nats-operator.io/force-delete": "" } } },
      "merge",
    );
    await waitFor("guard deleted", async () => (await readCluster(env.kube, namespace, "guard")) === undefined, {
      timeoutMs: 60_000,
    });
  }, 400_000);

  it("leaves an object of a rendered name it does not control untouched and reports it", async () => {
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "taken", namespace, labels: { owner: "someone-else" } },
      spec: { ports: [{ port: 80 }] },
    };
    await env.kube.create(service);
    const manifest = quickstart(namespace, "taken");
    delete manifest.spec["jetstream"];
    await env.kube.create(manifest);
    const failed = await waitFor(
      "Ready ReconcileFailed",
      async () => {
        const c = await readCluster(env.kube, namespace, "taken");
        return condition(c, "Ready")?.reason === "ReconcileFailed" ? c : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(condition(failed, "Ready")).toMatchObject({
      status: "False",
      message: "not controlled by this NatsCluster: Service taken",
    });
    const message = "not controlled by this NatsCluster, left untouched: Service taken";
    const progressing = await waitFor(
      "Progressing ReconcileFailed",
      async () => {
        const c = await readCluster(env.kube, namespace, "taken");
        return condition(c, "Progressing")?.reason === "ReconcileFailed" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(progressing, "Progressing")).toMatchObject({ status: "False", message });
    // Servers keep coming up meanwhile, each a reconcile that finds the same foreign Service.
    await waitFor("a server created", async () => (await templateRevisions("taken")).size > 0, { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 5000));
    type Event = KubeObject & { reason?: string; type?: string; note?: string; regarding?: { name?: string } };
    const events = (await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace })).filter(
      (e) => e.regarding?.name === "taken" && e.reason === "ReconcileFailed",
    );
    expect(events.map((e) => [e.type, e.note])).toEqual([["Warning", message]]);
    const after = await env.kube.get<KubeObject & { spec: { ports: { port: number }[] } }>({
      apiVersion: "v1",
      kind: "Service",
      namespace,
      name: "taken",
    });
    expect(after?.metadata.ownerReferences).toBeUndefined();
    expect(after?.metadata.labels).toEqual({ owner: "someone-else" });
    expect(after?.spec.ports.map((p) => p.port)).toEqual([80]);
  }, 300_000);
});
