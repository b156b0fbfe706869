// harness: real node
// A NatsConnection applied before its servers answer (a NatsCluster applied with it, still
// starting): the settle tick of its namespace re-checks it every 15 s for its first ten minutes,
// so it turns Ready, and its streams sync, on the first tick after the servers come up instead of
// after the Broker's doubling backoff; one whose servers go away says Disconnected and is polled
// the same way. Each event is delivered once here, as if the Broker's retries were spent, so only
// the tick can bring it up.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { syncStream } from "../../../functions/sync-stream/index.ts";
import { apiServerEvent } from "../../../shared/local/apiserver-event.ts";
import { pingEvent } from "../../../shared/local/ping-event.ts";
import { createEventRecorder } from "../../../shared/kube/events.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { dispatch, type DispatchDeps } from "../../../shared/runtime/dispatch.ts";
import type { Outcome } from "../../../shared/runtime/outcome.ts";
import { createLogger } from "../../../shared/telemetry/logger.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startNatsCluster, type NatsCluster, type ServerControl } from "./support/nats-cluster.ts";
import { condition, CORE, create, JS, read, resource } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let nats: NatsCluster & ServerControl;
let ns: string;
let offsetMs = 0;
let deps: DispatchDeps;

const deliver = (object: KubeObject): Promise<Outcome> =>
  dispatch(syncStream, apiServerEvent("https://kube", "Resource", "add", object), deps);

const settleTick = (): Promise<Outcome> =>
  dispatch(
    syncStream,
    pingEvent(ns, "sync-stream-settle", {
      data: JSON.stringify({ check: "settle", namespace: ns }),
      ceOverrides: { extensions: { target: "sync-stream" } },
    }),
    deps,
  );

const readyOf = async (apiVersion: string, kind: string, name: string) =>
  condition(await read(env.kube, apiVersion, kind, ns, name), "Ready");

const settleSchedule = () =>
  env.kube.get({ apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace: ns, name: "sync-stream-settle" });

const serverAnswering = () =>
  waitFor(
    "the server answering",
    () =>
      nats.client().then(
        (nc) => nc.close().then(() => true),
        () => undefined,
      ),
    { timeoutMs: 30_000 },
  );

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 1 });
  await nats.stopServer(0);
  ns = await env.namespace("connection-wait");
  deps = {
    log: createLogger({ level: "warn", destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    kube: async () => env.kube,
    recorder: async (name) => createEventRecorder(env.kube, `nats-operator.io/${name}`, "test"),
    now: () => new Date(Date.now() + offsetMs),
  };
}, 120_000);

afterAll(async () => {
  await syncStream.shutdown?.();
  await nats?.stop();
  await env?.stop();
}, 60_000);

describe("a NatsConnection whose servers do not answer yet", () => {
  it("reports ConnectFailed and starts its namespace's settle check", async () => {
    const connection = await create(env.kube, resource(CORE, "NatsConnection", ns, "app", { servers: nats.urls }));
    const outcome = await deliver(connection);
    expect(outcome.kind).toBe("retry");
    expect(await readyOf(CORE, "NatsConnection", "app")).toMatchObject({ status: "False", reason: "ConnectFailed" });
    expect(await settleSchedule()).toBeDefined();

    const stream = await create(
      env.kube,
      resource(JS, "NatsStream", ns, "orders", {
        connectionRef: { name: "app" },
        name: "ORDERS",
        subjects: ["orders.>"],
      }),
    );
    await deliver(stream);
    expect((await readyOf(JS, "NatsStream", "orders"))?.status).toBe("False");
  }, 60_000);

  it("keeps the settle check while the servers stay silent", async () => {
    await settleTick();
    expect(await readyOf(CORE, "NatsConnection", "app")).toMatchObject({ status: "False", reason: "ConnectFailed" });
    expect(await settleSchedule()).toBeDefined();
  }, 60_000);

  it("turns Ready, and syncs its streams, on the first settle tick after the servers answer", async () => {
    nats.startServer(0);
    await serverAnswering();
    await settleTick();
    expect(await readyOf(CORE, "NatsConnection", "app")).toMatchObject({ status: "True", reason: "Connected" });
    expect(await readyOf(JS, "NatsStream", "orders")).toMatchObject({ status: "True", reason: "Synced" });
    expect(await settleSchedule()).toBeUndefined();
  }, 60_000);

  it("reports Disconnected once its servers go away, and is Ready again on a settle tick after they return", async () => {
    await nats.stopServer(0);
    await deliver((await read(env.kube, CORE, "NatsConnection", ns, "app")) as KubeObject);
    expect(await readyOf(CORE, "NatsConnection", "app")).toMatchObject({
      status: "False",
      reason: "Disconnected",
      message: `lost its servers; reconnecting to ${nats.urls.join(", ")}`,
    });
    expect(await settleSchedule()).toBeDefined();
    nats.startServer(0);
    await serverAnswering();
    // The pooled client reconnects by itself within a second or so; the next tick sees it.
    await waitFor(
      "Ready on a settle tick",
      async () => {
        await settleTick();
        return (await readyOf(CORE, "NatsConnection", "app"))?.status === "True";
      },
      { timeoutMs: 30_000 },
    );
    await settleTick();
    expect(await settleSchedule()).toBeUndefined();
  }, 60_000);

  it("leaves a connection silent for ten minutes to the resync tick", async () => {
    const nowhere = await create(
      env.kube,
      resource(CORE, "NatsConnection", ns, "nowhere", { servers: ["nats://127.0.0.1:1"] }),
    );
    await deliver(nowhere);
    expect(await settleSchedule()).toBeDefined();
    offsetMs = 10 * 60_000;
    await settleTick();
    expect(await readyOf(CORE, "NatsConnection", "nowhere")).toMatchObject({
      status: "False",
      reason: "ConnectFailed",
    });
    expect(await settleSchedule()).toBeUndefined();
  }, 60_000);
});
