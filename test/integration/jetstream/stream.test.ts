// harness: real node
// Story 1 step 3 on a real three-server JetStream cluster: a NatsConnection
// and a NatsStream, the statuses they reach, drift repair and Retain.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startNatsCluster, js, type NatsCluster } from "./support/nats-cluster.ts";
import { conditionsOf, CORE, create, JS, read, resource, waitForCondition, type Resource } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let nats: NatsCluster;
let client: NatsConnection;
let driver: RunningOperator;
let ns: string;

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 3 });
  client = await nats.client();
  ns = await env.namespace("story1");
  driver = await startOperator(env.transport, syncStreamOnly(env.kube, [ns]));
}, 180_000);

afterAll(async () => {
  await driver?.stop();
  await client?.close();
  await Promise.all([nats?.stop(), env?.stop()]);
}, 60_000);

const streamKey = () => ({ apiVersion: JS, kind: "NatsStream", namespace: ns, name: "orders" });
const info = async (name: string) =>
  js<{ config?: Record<string, unknown>; state?: { messages: number }; error?: { description: string } }>(
    client,
    `STREAM.INFO.${name}`,
  );

describe("story 1 step 3: a NatsConnection and a NatsStream on a three-server cluster", () => {
  let stream: Resource;

  it("makes the connection Ready/Connected", async () => {
    await create(env.kube, resource(CORE, "NatsConnection", ns, "demo", { servers: nats.urls }));
    const connection = await waitForCondition(
      env.kube,
      { apiVersion: CORE, kind: "NatsConnection", namespace: ns, name: "demo" },
      "Ready",
      "True",
      "Connected",
    );
    expect(connection.status?.conditions?.[0]?.message).toMatch(/^connected to /);
  });

  it("creates the stream and shows the documented status", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "orders", {
        connectionRef: { name: "demo" },
        adoptionPolicy: "Never",
        deletionPolicy: "Retain",
        terminalPolicy: "Hold",
        name: "ORDERS",
        subjects: ["orders.>"],
        storage: "File",
        replicas: 3,
        retention: "Limits",
        maxAge: "72h",
        maxBytes: "5Gi",
      }),
    );
    stream = await waitForCondition(env.kube, streamKey(), "Ready", "True", "Synced");
    expect(conditionsOf(stream)).toEqual(["Ready=True/Synced", "Synced=True/MatchesSpec"]);
    expect(stream.status?.observedGeneration).toBe(1);
    expect(stream.status?.conditions?.[1]?.message).toBe("server config matches spec as of last check");
    expect(stream.status?.lastSyncedTime).toEqual(expect.any(String));
    expect(stream.status?.ownership).toEqual({ origin: "Created", uid: stream.metadata.uid });
    const server = stream.status?.server as {
      created: string;
      leader: string;
      replicas: { name: string; current: boolean }[];
      bytes: string;
      messages?: number;
    };
    expect(nats.names).toContain(server.leader);
    expect(server.replicas).toHaveLength(2);
    expect(server.created).toEqual(expect.any(String));
    expect(server.messages).toBeUndefined();
    expect(stream.metadata.finalizers).toContain("jetstream.nats-operator.io/finalizer");
  });

  it("puts the ownership marker and spec on the server", async () => {
    const config = (await info("ORDERS")).config ?? {};
    expect(config).toMatchObject({
      subjects: ["orders.>"],
      num_replicas: 3,
      max_age: 72 * 3600e9,
      max_bytes: 5 * 2 ** 30,
      storage: "file",
    });
    expect(config.metadata).toMatchObject({
      "jetstream.nats-operator.io/owner": stream.metadata.uid,
      "jetstream.nats-operator.io/origin": "Created",
    });
  });

  it("holds no schedule in the namespace once the stream is settled: drift is checked on the resync tick", async () => {
    // A replicated stream may be written before its group settles; the settle tick then drops its schedule.
    await driver.tick(ns, "settle");
    const pings = await env.kube.list({ apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace: ns });
    expect(pings.map((p) => p.metadata.name)).toEqual([]);
  });

  it("shows published messages after the next check", async () => {
    await client.publish("orders.created", JSON.stringify({ id: 1 }));
    await waitFor("message stored", async () => (await info("ORDERS")).state?.messages === 1);
    await driver.tick(ns);
    const after = await read(env.kube, JS, "NatsStream", ns, "orders");
    expect((after?.status?.server as { messages?: number }).messages).toBe(1);
  });

  it("puts back a stream edited behind its back at the next check, reported once as DriftCorrected", async () => {
    const config = (await info("ORDERS")).config ?? {};
    const edited = await js<{ error?: unknown }>(client, "STREAM.UPDATE.ORDERS", {
      ...config,
      subjects: ["orders.>", "sneaky.>"],
      max_msgs: 10,
    });
    expect(edited.error).toBeUndefined();
    await driver.tick(ns);
    const restored = (await info("ORDERS")).config ?? {};
    expect(restored.subjects).toEqual(["orders.>"]);
    expect(restored.max_msgs).toBe(-1);
    const corrected = await read(env.kube, JS, "NatsStream", ns, "orders");
    expect(conditionsOf(corrected)).toEqual(["Ready=True/Synced", "Synced=False/DriftCorrected"]);
    expect(corrected?.status?.conditions?.[1]?.message).toBe("reapplied spec over drift in subjects, max_msgs");
    await driver.tick(ns);
    expect(conditionsOf(await read(env.kube, JS, "NatsStream", ns, "orders"))).toEqual([
      "Ready=True/Synced",
      "Synced=True/MatchesSpec",
    ]);
  });

  it("recreates a stream deleted behind its back at the next check, recording the loss first", async () => {
    await js(client, "STREAM.DELETE.ORDERS");
    expect((await info("ORDERS")).error).toBeDefined();
    await driver.tick(ns);
    expect((await info("ORDERS")).config?.subjects).toEqual(["orders.>"]);
    const after = await read(env.kube, JS, "NatsStream", ns, "orders");
    expect(after?.status?.lost).toEqual({
      at: expect.any(String),
      lastKnown: { messages: 1, bytes: expect.any(String), lastSequence: 1 },
    });
    const events = (await env.transport.request("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`)) as {
      items: { type: string; reason: string; note: string; regarding: { kind: string; name: string } }[];
    };
    const lost = events.items.filter((e) => e.regarding.name === "orders" && e.reason === "StreamLost");
    expect(lost).toHaveLength(1);
    expect(lost[0]?.type).toBe("Warning");
    expect(lost[0]?.note).toMatch(
      /^stream ORDERS, last seen with 1 messages \(\S+, last sequence 1\), is not found on the server; recreating it empty/,
    );
  });

  it("under onLoss Hold leaves a lost stream gone, Ready=False/StreamLost, until onLoss is Recreate", async () => {
    await env.kube.patch(streamKey(), { spec: { onLoss: "Hold" } }, "merge");
    await waitForCondition(env.kube, streamKey(), "Ready", "True", "Synced");
    await js(client, "STREAM.DELETE.ORDERS");
    await driver.tick(ns);
    const held = await read(env.kube, JS, "NatsStream", ns, "orders");
    expect(conditionsOf(held)).toContain("Ready=False/StreamLost");
    expect((await info("ORDERS")).error).toBeDefined();
    await driver.tick(ns);
    expect((await info("ORDERS")).error).toBeDefined();
    await env.kube.patch(streamKey(), { spec: { onLoss: "Recreate" } }, "merge");
    await waitForCondition(env.kube, streamKey(), "Ready", "True", "Synced");
    expect((await info("ORDERS")).config?.subjects).toEqual(["orders.>"]);
    const events = (await env.transport.request("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`)) as {
      items: { reason: string; note: string; regarding: { name: string } }[];
    };
    // One StreamLost for the first loss, one for this (two ticks while held said it once).
    const lost = events.items.filter((e) => e.regarding.name === "orders" && e.reason === "StreamLost");
    expect(lost.map((e) => e.note)).toContainEqual(
      expect.stringMatching(/is not found on the server; held by spec.onLoss Hold: set spec.onLoss to Recreate/),
    );
    expect(lost).toHaveLength(2);
  });

  it("with deletionPolicy Retain leaves the stream on the server and finishes deleting", async () => {
    await env.kube.delete(streamKey());
    await waitFor("NatsStream gone", async () => (await read(env.kube, JS, "NatsStream", ns, "orders")) === undefined);
    expect((await info("ORDERS")).config?.name).toBe("ORDERS");
  });

  it("recorded Events for the create and the drift correction", async () => {
    const events = (await env.transport.request("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`)) as {
      items: { reason: string; note: string; regarding: { kind: string; name: string } }[];
    };
    const about = events.items.filter((e) => e.regarding.kind === "NatsStream" && e.regarding.name === "orders");
    expect(about.map((e) => e.reason)).toEqual(expect.arrayContaining(["Created", "DriftCorrected"]));
    expect(about.find((e) => e.reason === "Created")?.note).toBe("created stream ORDERS");
  });

  it("leaves no schedule in the namespace once its last stream is gone", async () => {
    expect((await driver.tick(ns)).kind).toBe("done");
    expect((await driver.tick(ns, "settle")).kind).toBe("done");
    const pings = await env.kube.list({ apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace: ns });
    expect(pings.map((p) => p.metadata.name)).toEqual([]);
  });
});
