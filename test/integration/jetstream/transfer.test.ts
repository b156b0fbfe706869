// harness: real node
// A stream moved to another NATS cluster of a supercluster by editing
// placement.cluster: status.transfer and Synced=False/Moving while it moves
// (Ready stays True), re-read on the settle schedule until the move is done.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { js, type NatsCluster } from "./support/nats-cluster.ts";
import { conditionsOf, CORE, create, JS, read, resource, waitForCondition } from "./support/objects.ts";
import { startSupercluster } from "./support/supercluster.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let nats: NatsCluster;
let client: NatsConnection;
let driver: RunningOperator;
let ns: string;

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startSupercluster(["east", "west"], 1);
  client = await nats.client();
  ns = await env.namespace("transfer");
  driver = await startOperator(env.transport, syncStreamOnly(env.kube, [ns]));
  await create(env.kube, resource(CORE, "NatsConnection", ns, "super", { servers: nats.urls }));
}, 180_000);

afterAll(async () => {
  await driver?.stop();
  await client?.close();
  await nats?.stop();
  await env?.stop();
}, 60_000);

const streamKey = () => ({ apiVersion: JS, kind: "NatsStream", namespace: ns, name: "move" });

describe("moving a stream between NATS clusters", () => {
  it("starts in east with a consumer", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "move", {
        connectionRef: { name: "super" },
        name: "MOVE",
        subjects: ["move.>"],
        placement: { cluster: "east" },
      }),
    );
    await waitForCondition(env.kube, streamKey(), "Ready", "True", "Synced");
    await create(
      env.kube,
      resource(JS, "NatsConsumer", ns, "reader", {
        streamRef: { name: "move" },
        name: "reader",
        ackPolicy: "Explicit",
      }),
    );
    await waitForCondition(
      env.kube,
      { apiVersion: JS, kind: "NatsConsumer", namespace: ns, name: "reader" },
      "Ready",
      "True",
      "Synced",
    );
    for (let i = 0; i < 500; i++) client.publish("move.data", new Uint8Array(20_000));
    await client.flush();
  });

  it("shows Synced=False/Moving and status.transfer while it moves, Ready staying True", async () => {
    await env.kube.patch(streamKey(), { spec: { placement: { cluster: "west" } } }, "merge");
    const moving = await waitForCondition(env.kube, streamKey(), "Synced", "False", "Moving");
    expect(conditionsOf(moving)).toContain("Ready=True/Synced");
    expect(moving.status?.conditions?.find((c) => c.type === "Synced")?.message).toMatch(
      /^moving to NATS cluster west; \d of 1 new replicas current$/,
    );
    expect(moving.status?.transfer).toMatchObject({
      from: "east",
      to: "west",
      started: expect.any(String),
      replicas: [{ name: "west-0" }],
      consumers: { total: 1 },
    });
    // The settle schedule is kept after the status write that asks for it: waited for.
    await waitFor(
      "the settle PingSource",
      () =>
        env.kube.get({
          apiVersion: "sources.knative.dev/v1",
          kind: "PingSource",
          namespace: ns,
          name: "sync-stream-settle",
        }),
      { timeoutMs: 30_000 },
    );
  });

  it("clears transfer once the move is done, re-read on the settle schedule", async () => {
    await waitFor(
      "move finished in status",
      async () => {
        await driver.tick(ns, "settle");
        const s = await read(env.kube, JS, "NatsStream", ns, "move");
        return s?.status?.transfer === undefined && conditionsOf(s).includes("Synced=True/MatchesSpec");
      },
      { timeoutMs: 60_000 },
    );
    const info = await js<{ cluster: { name: string } }>(client, "STREAM.INFO.MOVE");
    expect(info.cluster.name).toBe("west");
    await driver.tick(ns, "settle");
    expect(
      await env.kube.get({
        apiVersion: "sources.knative.dev/v1",
        kind: "PingSource",
        namespace: ns,
        name: "sync-stream-settle",
      }),
    ).toBeUndefined();
  }, 90_000);
});
