// harness: real node
// Story 11 on NATS clusters the operator renders: `east` and `west` are NatsClusters joined over
// the gateways render-cluster writes, their servers tagged `site:east` and `site:west`. A
// NatsClusterEvacuation on the system user's connection moves every stream off east to the servers
// tagged `site:west` while a stream takes publishes throughout, losing no acknowledged message;
// then deleting the east NatsCluster passes its deletion guard, since no stream group remains there.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { balance } from "../../../functions/balance/index.ts";
import type { NatsClusterEvacuation } from "../../../functions/balance/evacuation/resource.ts";
import { ALLOW_GATEWAY_WITHOUT_TLS_ENV, type Cluster } from "../../../functions/cluster/index.ts";
import { createEventRecorder } from "../../../shared/kube/events.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import type { DispatchDeps } from "../../../shared/runtime/dispatch.ts";
import { createLogger } from "../../../shared/telemetry/logger.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { API_VERSION, clusterKey, condition, readCluster } from "../cluster/support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth, SYSTEM_CREDENTIALS } from "../cluster/support/operator-mode.ts";
import { createStream, js, publishOnce } from "./support/nats-cluster.ts";
import { evacuationPass } from "./support/evacuation-pass.ts";
import { publishThroughout } from "./support/publish-throughout.ts";
import { CORE, create, JS, resource } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

const STREAMS = ["ORDERS", "EVENTS"];

let env: Environment;
let operator: RunningOperator;
let nats: TestOperator;
let app: SignedAccount;
let ns: string;
let deps: DispatchDeps;
/** The application's client, connected to east only, so streams without placement land there. */
let client: NatsConnection;

const gatewayHost = (cluster: string) => `${cluster}-gateway.${ns}.svc`;

/** A two-server JetStream NatsCluster in operator mode, a member of the east–west supercluster. */
function member(name: string): KubeObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: API_VERSION,
    kind: "NatsCluster",
    metadata: { name, namespace: ns },
    spec: {
      version: "2.15.2",
      replicas: 2,
      resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "256Mi" } },
      jetstream: { storage: "Ephemeral" },
      serverTags: { site: name },
      auth: { ...operatorModeAuth(), accountTrustRefs: [{ name: "app" }] },
      gateway: {
        discovery: "Explicit",
        remotes: ["east", "west"].map((c) => ({ name: c, url: `nats://${gatewayHost(c)}:7222` })),
        service: { type: "ClusterIP" },
        advertise: `${gatewayHost(name)}:7222`,
      },
    },
  };
}

const describeConditions = (cluster: Cluster | undefined) =>
  (cluster?.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`).join("; ");

/** Waits for a member at rest with its gateway to the other one up. */
async function joined(name: string): Promise<Cluster> {
  let last: Cluster | undefined;
  return waitFor(
    `${name} at rest with its gateways connected`,
    async () => {
      last = await readCluster(env.kube, ns, name);
      const ok =
        condition(last, "Ready")?.reason === "AllServersReady" &&
        condition(last, "Settled")?.reason === "AllGroupsCurrent" &&
        condition(last, "GatewaysConnected")?.status === "True";
      return ok ? last : undefined;
    },
    { timeoutMs: 420_000 },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; ${describeConditions(last)}`);
  });
}

type StreamInfo = { cluster?: { name?: string; replicas?: { name: string }[] }; state: { messages: number } };
const info = (stream: string) => js<StreamInfo>(client, `STREAM.INFO.${stream}`);

const pass = (name: string) => evacuationPass(deps, ns, name);

const evacuation = (name: string) =>
  env.kube.get<NatsClusterEvacuation>({ apiVersion: JS, kind: "NatsClusterEvacuation", namespace: ns, name });

beforeAll(async () => {
  env = await startEnvironment();
  ns = await env.namespace("story11");
  nats = await createOperator();
  app = await nats.signAccount("app", { jetstream: true });
  await installOperatorTrust(env.kube, ns, nats);
  await env.kube.create({
    apiVersion: CORE,
    kind: "NatsAccountTrust",
    metadata: { name: "app", namespace: ns },
    spec: { publicKey: app.publicKey, jwt: app.jwt },
  } as KubeObject);
  // Gateways in clear keep the test about the evacuation; the supercluster test covers their TLS.
  process.env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] = "true";
  operator = await startOperator(env.transport);
  deps = {
    log: createLogger({ level: "warn", destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    kube: async () => env.kube,
    recorder: async (name) => createEventRecorder(env.kube, `nats-operator.io/${name}`, "test"),
  };
}, 300_000);

afterAll(async () => {
  process.env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] = "";
  await balance.shutdown?.();
  await client?.close();
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("story 11 on NatsClusters: retiring east", () => {
  it("joins east and west over the gateways the operator renders, streams living in east", async () => {
    await env.kube.create(member("east"));
    await env.kube.create(member("west"));
    const [east, west] = await Promise.all([joined("east"), joined("west")]);
    expect(condition(east, "GatewaysConnected")?.message).toBe("1 of 1 remote members connected");
    expect(condition(west, "GatewaysConnected")?.message).toBe("1 of 1 remote members connected");

    client = await connect({
      servers: `nats://east.${ns}.svc:4222`,
      authenticator: credsAuthenticator(new TextEncoder().encode(app.userCreds)),
      timeout: 5_000,
    });
    // The first JetStream request of a supercluster just at rest may meet a meta group still
    // electing: createStream asks again until the stream is made.
    await createStream(client, { name: "ORDERS", subjects: ["orders.>"], num_replicas: 2 });
    await createStream(client, { name: "EVENTS", subjects: ["events.>"], num_replicas: 1 });
    for (let i = 0; i < 100; i++) await publishOnce(client, `events.${i}`, `event ${i}`, `events-${i}`);
    for (const stream of STREAMS) expect((await info(stream)).cluster?.name).toBe("east");
  }, 600_000);

  it("moves every stream off east to the servers tagged site:west, losing no acknowledged message", async () => {
    await create(
      env.kube,
      resource(CORE, "NatsConnection", ns, "system", {
        servers: [`nats://east.${ns}.svc:4222`, `nats://west.${ns}.svc:4222`],
        credentials: { secretKeyRef: { name: SYSTEM_CREDENTIALS } },
      }),
    );
    const publisher = publishThroughout(client, "orders");
    await create(
      env.kube,
      resource(JS, "NatsClusterEvacuation", ns, "retire-east", {
        connectionRef: { name: "system" },
        from: { cluster: "east" },
        to: { serverTags: ["site:west"] },
      }),
    );
    let last: NatsClusterEvacuation | undefined;
    const done = await waitFor(
      "the evacuation Ready",
      async () => {
        await pass("retire-east");
        last = await evacuation("retire-east");
        return last?.status?.conditions?.find((c) => c.type === "Ready")?.reason === "Evacuated" ? last : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 1_000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; status ${JSON.stringify(last?.status)}`);
    });
    const acked = await publisher.stop();

    expect(done.status).toMatchObject({ moved: STREAMS.length, inFlight: 0, remaining: 0, requested: [], pinned: [] });
    for (const stream of STREAMS) {
      const moved = await info(stream);
      expect(moved.cluster?.name).toBe("west");
      expect((moved.cluster?.replicas ?? []).every((r) => r.name.startsWith("west-"))).toBe(true);
    }
    expect((await info("EVENTS")).state.messages).toBe(100);
    expect(acked.length).toBeGreaterThan(10);
    for (const seq of acked) {
      const got = await js<{ error?: unknown }>(client, "STREAM.MSG.GET.ORDERS", { seq });
      expect(got.error).toBeUndefined();
    }
  }, 300_000);

  it("deletes the east NatsCluster past its deletion guard: no stream group remains there", async () => {
    await env.kube.delete(clusterKey(ns, "east"));
    await waitFor(
      "the east NatsCluster gone",
      async () => ((await readCluster(env.kube, ns, "east")) === undefined ? true : undefined),
      { timeoutMs: 180_000 },
    ).catch(async (error: unknown) => {
      const east = await readCluster(env.kube, ns, "east");
      throw new Error(`${String(error)}; ${describeConditions(east)}`);
    });
  }, 240_000);
});
