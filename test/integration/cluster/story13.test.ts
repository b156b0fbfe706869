// harness: real node
// Story 13: join a supercluster that you did not deploy. `central` is a plain nats-server started
// by the test (someone else's operator keys, a MEMORY resolver with preloads, reject_unknown, no
// gateway TLS); `west` is a NatsCluster under literal trusts of that operator that joins it over
// gateways. One JetStream meta group spans both, and a stream placed in west lives on west's
// servers. The operator allows gateways in clear, as the story's chart value does.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { syncStream } from "../../../functions/sync-stream/index.ts";
import { ALLOW_GATEWAY_WITHOUT_TLS_ENV } from "../../../functions/cluster/index.ts";
import type { Condition } from "../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { ensureBinaries } from "../../harness/binaries.ts";
import { freePorts } from "../../harness/ports.ts";
import { spawnDetached, stopPid } from "../../harness/processes.ts";
import { withClusterDns } from "../../harness/host-with-cluster-dns.ts";
import { addressPodsReach, currentHarness, type HarnessState } from "../../harness/state.ts";
import { gatherReplies } from "../../../shared/nats/request.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { condition, readCluster } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let nats: TestOperator;
let orders: SignedAccount;
let namespace: string;
let centralDir: string;
let centralPid: number | undefined;
let centralClient: number;
let centralGateway: number;
let centralHost: string;
let harness: HarnessState | undefined;

const westGateway = () => `west-gateway.${namespace}.svc`;

/** central as its owners run it: their operator, preloaded accounts, west listed by name. */
async function startCentral(): Promise<void> {
  const [client, route, gateway] = await freePorts(3);
  harness = await currentHarness();
  const host = addressPodsReach(harness);
  centralHost = host;
  centralClient = client as number;
  centralDir = await mkdtemp(join(tmpdir(), "story13-central-"));
  const config = {
    server_name: "central-0",
    listen: `${host}:${client}`,
    operator: nats.operatorJWT,
    system_account: nats.systemAccount.publicKey,
    resolver: "MEMORY",
    resolver_preload: { [nats.systemAccount.publicKey]: nats.systemAccount.jwt, [orders.publicKey]: orders.jwt },
    jetstream: { store_dir: join(centralDir, "js"), max_memory_store: 268435456, max_file_store: 1073741824 },
    cluster: { name: "central", listen: `${host}:${route}`, routes: [`nats-route://${host}:${route}`] },
    gateway: {
      name: "central",
      listen: `${host}:${gateway}`,
      reject_unknown: true,
      gateways: [{ name: "west", urls: [`nats://${westGateway()}:7222`] }],
    },
  };
  const file = join(centralDir, "central.json");
  await writeFile(file, JSON.stringify(config, null, 2));
  const bins = await ensureBinaries(() => undefined);
  const argv = withClusterDns(harness, centralDir, bins.natsServer, ["-c", file]);
  centralPid = spawnDetached(argv.command, argv.args, { logFile: join(centralDir, "central.log") });
  centralGateway = gateway as number;
}

const describeConditions = (cluster: Cluster | undefined) =>
  ((cluster?.status?.conditions ?? []) as Condition[])
    .map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`)
    .join("; ");

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("story13");
  nats = await createOperator({ name: "central-operator" });
  orders = await nats.signAccount("orders", { jetstream: true });
  await startCentral();
  process.env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] = "true";
  operator = await startOperator(env.transport, {
    extraFunctions: [syncStream],
    extraKinds: ["NatsConnection", "NatsStream", "Secret"],
  });
}, 300_000);

afterAll(async () => {
  process.env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] = "";
  await operator?.stop();
  if (centralPid !== undefined) await stopPid(centralPid, { expect: "nats-server" }).catch(() => undefined);
  if (centralDir) await rm(centralDir, { recursive: true, force: true });
  await env?.stop();
}, 120_000);

describe("story 13: join a supercluster that you did not deploy", () => {
  it("step 01: west joins central over gateways, at rest, one meta group counting both", async () => {
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsOperatorTrust",
      metadata: { name: "central", namespace },
      spec: { operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsAccountTrust",
      metadata: { name: "orders", namespace },
      spec: { publicKey: orders.publicKey, jwt: orders.jwt },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "west-cluster-controller-creds", namespace },
      stringData: { "user.creds": nats.systemUserCreds },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "west", namespace },
      spec: {
        version: "2.15.2",
        replicas: 3,
        resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "256Mi" } },
        jetstream: { storage: "Ephemeral" },
        auth: {
          trustRef: { name: "central" },
          systemCredentials: { secretKeyRef: { name: "west-cluster-controller-creds" } },
          accountTrustRefs: [{ name: "orders" }],
        },
        gateway: {
          discovery: "Explicit",
          remotes: [
            { name: "central", url: `nats://${centralHost}:${centralGateway}` },
            { name: "west", url: `nats://${westGateway()}:7222` },
          ],
          service: { type: "ClusterIP" },
          advertise: `${westGateway()}:7222`,
        },
      },
    } as KubeObject);

    let last: Cluster | undefined;
    const west = await waitFor(
      "west at rest and GatewaysConnected",
      async () => {
        last = await readCluster(env.kube, namespace, "west");
        const ok =
          condition(last, "Ready")?.reason === "AllServersReady" &&
          condition(last, "Settled")?.reason === "AllGroupsCurrent" &&
          condition(last, "GatewaysConnected")?.status === "True";
        return ok ? last : undefined;
      },
      { timeoutMs: 360_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}; logs in ${centralDir}`);
    });
    expect(condition(west, "GatewaysConnected")).toMatchObject({
      reason: "AllMembersReachable",
      message: "1 of 1 remote members connected",
    });
    // Each west server dials central; central's one server dials one of west's.
    expect(west.status?.gateways).toEqual([{ name: "central", connected: true, inbound: 1, outbound: 3 }]);
    expect(west.status?.endpoints).toMatchObject({
      client: `nats://west.${namespace}.svc:4222`,
      gateway: `${westGateway()}:7222`,
    });

    // Every server of both clusters reports the same meta leader, in a meta group of 4.
    const system = await connect({
      servers: `nats://${centralHost}:${centralClient}`,
      authenticator: credsAuthenticator(new TextEncoder().encode(nats.systemUserCreds)),
    });
    try {
      type JszReply = { server: { name: string }; data: { meta_cluster?: { leader?: string; cluster_size?: number } } };
      const views = await waitFor(
        "4 servers naming one meta leader",
        async () => {
          const replies = await gatherReplies<JszReply>(
            system,
            "$SYS.REQ.SERVER.PING.JSZ",
            {},
            {
              inboxPrefix: "_INBOX",
              complete: (r) => r.length === 4,
            },
          );
          const leaders = new Set(replies.map((r) => r.data.meta_cluster?.leader ?? ""));
          return replies.length === 4 && leaders.size === 1 && !leaders.has("") ? replies : undefined;
        },
        { timeoutMs: 120_000 },
      );
      expect(views.map((v) => v.server.name).sort()).toEqual(["central-0", "west-0", "west-1", "west-2"]);
      expect(new Set(views.map((v) => v.data.meta_cluster?.cluster_size))).toEqual(new Set([4]));
    } finally {
      await system.close();
    }
  }, 480_000);

  it("step 02: a stream placed in west is Synced, with its leader and replicas on west's servers", async () => {
    await env.kube.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "orders-creds", namespace },
      stringData: { "user.creds": orders.userCreds },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "orders", namespace },
      spec: {
        servers: [`nats://west.${namespace}.svc:4222`],
        credentials: { secretKeyRef: { name: "orders-creds" } },
      },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "jetstream.nats-operator.io/v1beta1",
      kind: "NatsStream",
      metadata: { name: "orders", namespace },
      spec: {
        connectionRef: { name: "orders" },
        name: "ORDERS",
        subjects: ["orders.>"],
        replicas: 3,
        placement: { cluster: "west" },
      },
    } as KubeObject);
    type Stream = KubeObject & {
      status?: {
        observedGeneration?: number;
        conditions?: Condition[];
        ownership?: { origin?: string };
        server?: { leader?: string; replicas?: { name: string; current: boolean }[] };
      };
    };
    const key = { apiVersion: "jetstream.nats-operator.io/v1beta1", kind: "NatsStream", namespace, name: "orders" };
    let last: Stream | undefined;
    const stream = await waitFor(
      "ORDERS Synced with its replicas current",
      async () => {
        last = await env.kube.get<Stream>(key);
        const synced = last?.status?.conditions?.find((c) => c.type === "Synced");
        const replicas = last?.status?.server?.replicas ?? [];
        return synced?.reason === "MatchesSpec" && replicas.length === 2 && replicas.every((r) => r.current)
          ? last
          : undefined;
      },
      { timeoutMs: 180_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${JSON.stringify(last?.status)}`);
    });
    expect(stream.status?.observedGeneration).toBe(1);
    expect(stream.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      reason: "Synced",
    });
    expect(stream.status?.ownership?.origin).toBe("Created");
    const servers = [stream.status?.server?.leader, ...(stream.status?.server?.replicas ?? []).map((r) => r.name)];
    expect(servers.sort()).toEqual(["west-0", "west-1", "west-2"]);
  }, 300_000);
});
