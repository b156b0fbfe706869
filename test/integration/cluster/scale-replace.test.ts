// harness: real node
// Scaling up and down and replace-server: carried through without JetStream; with JetStream and
// no system credentials, scale-up works and scale-down and replacement are blocked, never forced;
// one JetStream server runs standalone and stays one.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, condition, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { startPublisher } from "./support/publisher.ts";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;

const statefulSets = async (cluster: string) =>
  (
    await env.kube.list<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      labelSelector: `cluster.nats-operator.io/cluster=${cluster}`,
    })
  )
    .map((s) => s.metadata.name)
    .sort();
const configMaps = async (cluster: string) =>
  (
    await env.kube.list<KubeObject>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace,
      labelSelector: `cluster.nats-operator.io/cluster=${cluster}`,
    })
  )
    .map((s) => s.metadata.name)
    .sort();

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("scale");
  operator = await startOperator(env.transport);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("scale and replace", () => {
  it("one JetStream server runs standalone: it comes to rest, keeps its stream across a restart, and cannot be scaled into a cluster", async () => {
    const one = quickstart(namespace, "solo");
    await env.kube.create({ ...one, spec: { ...one.spec, replicas: 1 } });
    const atRest = await waitAtRest(env.kube, namespace, 240_000, "solo");
    expect(condition(atRest, "Settled")?.message).toBe("every Raft group has a leader and every member is current");

    const nc = await connect({ servers: `nats://solo-0-0.solo-headless.${namespace}.svc:4222` });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "SOLO", subjects: ["solo.>"] });
      for (let i = 0; i < 5; i++) await jetstream(nc).publish("solo.event", `event ${i}`);
    } finally {
      await nc.close();
    }

    const podKey = { apiVersion: "v1", kind: "Pod", namespace, name: "solo-0-0" };
    const podBefore = (await env.kube.get<KubeObject>(podKey))?.metadata.uid;
    await env.kube.patch(
      clusterKey(namespace, "solo"),
      { spec: { resources: { requests: { cpu: "100m", memory: "320Mi" }, limits: { memory: "320Mi" } } } },
      "merge",
    );
    await waitFor(
      "solo-0 restarted",
      async () => (await env.kube.get<KubeObject>(podKey))?.metadata.uid !== podBefore,
      { timeoutMs: 240_000 },
    );
    const restarted = await waitAtRest(env.kube, namespace, 240_000, "solo");
    expect(restarted.status?.jetstream?.limits?.maxMemoryStore).toBe("240Mi");
    expect(restarted.status?.config?.appliedBy).toBe("Restart");
    const again = await connect({ servers: `nats://solo-0-0.solo-headless.${namespace}.svc:4222` });
    try {
      expect((await (await jetstreamManager(again)).streams.info("SOLO")).state.messages).toBe(5);
    } finally {
      await again.close();
    }

    await expect(env.kube.patch(clusterKey(namespace, "solo"), { spec: { replicas: 3 } }, "merge")).rejects.toThrow(
      /cannot move between one server without a gateway \(standalone JetStream\) and clustered JetStream/,
    );
  }, 600_000);

  it("without JetStream: 3 to 5 to 3 servers, then replace-server, each ending at rest", async () => {
    const manifest = quickstart(namespace, "plain");
    delete manifest.spec["jetstream"];
    await env.kube.create(manifest);
    await waitAtRest(env.kube, namespace, 240_000, "plain");

    await env.kube.patch(clusterKey(namespace, "plain"), { spec: { replicas: 5 } }, "merge");
    const five = await waitAtRest(env.kube, namespace, 400_000, "plain");
    expect(five.status?.readyReplicas).toBe(5);
    expect(await statefulSets("plain")).toEqual(["plain-0", "plain-1", "plain-2", "plain-3", "plain-4"]);

    await env.kube.patch(clusterKey(namespace, "plain"), { spec: { replicas: 3 } }, "merge");
    const three = await waitAtRest(env.kube, namespace, 400_000, "plain");
    expect(three.status?.servers?.map((s) => s.name)).toEqual(["plain-0", "plain-1", "plain-2"]);
    expect(await statefulSets("plain")).toEqual(["plain-0", "plain-1", "plain-2"]);
    expect(await configMaps("plain")).toEqual(["plain-0-config", "plain-1-config", "plain-2-config"]);
    expect(three.status?.removals).toBeUndefined();

    const before = await env.kube.get<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      name: "plain-1",
    });
    await env.kube.patch(
      clusterKey(namespace, "plain"),
      { metadata: { annotations: { "cluster.nats-operator.io/replace-server": "plain-1" } } },
      "merge",
    );
    await waitFor(
      "plain-1 recreated",
      async () => {
        const sts = await env.kube.get<KubeObject>({
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          namespace,
          name: "plain-1",
        });
        return sts && sts.metadata.uid !== before?.metadata.uid;
      },
      { timeoutMs: 120_000 },
    );
    const replaced = await waitAtRest(env.kube, namespace, 300_000, "plain");
    expect(replaced.metadata.annotations?.["cluster.nats-operator.io/replace-server"]).toBeUndefined();
    expect(replaced.status?.readyReplicas).toBe(3);
  }, 1_200_000);

  it("with JetStream: 3 to 5 keeps every stream intact; going back to 3 and replace-server are blocked without system credentials", async () => {
    await env.kube.create(quickstart(namespace, "js"));
    await waitAtRest(env.kube, namespace, 240_000, "js");
    const servers = [0, 1, 2].map((i) => `nats://js-${i}-0.js-headless.${namespace}.svc:4222`);
    const publisher = await startPublisher(servers, "ORDERS", "orders");
    await waitFor("publishes acknowledged", async () => publisher.acked.size > 20, { timeoutMs: 30_000 });

    await env.kube.patch(clusterKey(namespace, "js"), { spec: { replicas: 5 } }, "merge");
    await waitFor(
      "the rollout to start",
      async () => (await readCluster(env.kube, namespace, "js"))?.status?.rollout !== undefined,
      { timeoutMs: 60_000 },
    );
    const five = await waitAtRest(env.kube, namespace, 600_000, "js");
    await publisher.stop();
    expect(five.status?.readyReplicas).toBe(5);
    expect(five.status?.servers).toHaveLength(5);
    expect(await publisher.missing()).toEqual([]);
    await publisher.close();

    await env.kube.patch(clusterKey(namespace, "js"), { spec: { replicas: 3 } }, "merge");
    const blocked = await waitFor(
      "ScaleDownBlocked",
      async () => {
        const c = await readCluster(env.kube, namespace, "js");
        return condition(c, "Progressing")?.reason === "ScaleDownBlocked" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(blocked, "Progressing")).toMatchObject({
      status: "False",
      message: "cannot evacuate js-3, js-4: evacuation needs auth.systemCredentials",
    });
    expect(await statefulSets("js")).toHaveLength(5);

    await env.kube.patch(
      clusterKey(namespace, "js"),
      { spec: { replicas: 5 }, metadata: { annotations: { "cluster.nats-operator.io/replace-server": "js-1" } } },
      "merge",
    );
    // The request is claimed in status first and the annotation taken off after, in a write of its
    // own: wait for both.
    const replacement = await waitFor(
      "ReplacementBlocked, and the replace-server annotation taken",
      async () => {
        const c = await readCluster(env.kube, namespace, "js");
        const taken = c?.metadata.annotations?.["cluster.nats-operator.io/replace-server"] === undefined;
        return condition(c, "Progressing")?.reason === "ReplacementBlocked" && taken ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(replacement.metadata.annotations?.["cluster.nats-operator.io/replace-server"]).toBeUndefined();
    expect(replacement.status?.removals).toEqual([{ name: "js-1", phase: "Requested", since: expect.any(String) }]);
    expect(await statefulSets("js")).toHaveLength(5);
  }, 1_200_000);
});
