// harness: real node
// Story 10's leafnode mechanics, on one control plane (the story itself, across two Kubernetes
// clusters, is story10.test.ts): a hub NatsCluster opens a leafnode listener (C51) and an edge
// NatsCluster in another namespace dials it through a NatsConnection whose creds authenticate
// into the hub's application account (C52, C53). LeafnodesConnected on the edge, and a message
// published at the edge is received at the hub. A second site under the hub's operator binds its
// system account to the hub's, observed over $SYS LEAFZ, and serves accounts it never cached (C56).
// A remote whose NatsConnection sits in another namespace is dialled while a NatsReferenceGrant
// admits it; withdrawing the grant drops that remote only.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { Condition } from "../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinaries } from "../../harness/binaries.ts";
import { freePorts } from "../../harness/ports.ts";
import { spawnDetached, stopPid } from "../../harness/processes.ts";
import { addressPodsReach, currentHarness } from "../../harness/state.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { condition, readCluster } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let nats: TestOperator;
let app: SignedAccount;
let hubNamespace: string;
let edgeNamespace: string;

const resources = { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } };

beforeAll(async () => {
  env = await startEnvironment();
  hubNamespace = await env.namespace("hub");
  edgeNamespace = await env.namespace("edge");
  operator = await startOperator(env.transport, { extraKinds: ["NatsConnection", "NatsReferenceGrant"] });
  nats = await createOperator();
  app = await nats.signAccount("app");
  await installOperatorTrust(env.kube, hubNamespace, nats);
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsAccountTrust",
    metadata: { name: "app", namespace: hubNamespace },
    spec: { publicKey: app.publicKey, jwt: app.jwt },
  } as KubeObject);
  // What the edge's owner is given by the hub's: a URL of its leafnode listener and a user's creds.
  await env.kube.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "hub-leaf-creds", namespace: edgeNamespace },
    stringData: { "user.creds": app.userCreds },
  } as KubeObject);
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name: "hub", namespace: edgeNamespace },
    spec: {
      servers: [`nats-leaf://hub-leafnodes.${hubNamespace}.svc:7422`],
      credentials: { secretKeyRef: { name: "hub-leaf-creds" } },
    },
  } as KubeObject);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  if (depot) await depot.stop();
  await env?.stop();
}, 120_000);

/** A plain nats-server with an open leafnode listener, run by someone else: where a second remote dials. */
let depot: { leafUrl: string; leafs(): Promise<number>; stop(): Promise<void> } | undefined;
async function startDepot(): Promise<NonNullable<typeof depot>> {
  const [client, leaf, monitor] = (await freePorts(3)) as [number, number, number];
  const host = addressPodsReach(await currentHarness());
  const dir = await mkdtemp(join(tmpdir(), "leaf-depot-"));
  const file = join(dir, "depot.json");
  await writeFile(
    file,
    JSON.stringify({
      server_name: "depot",
      listen: `${host}:${client}`,
      http: `${host}:${monitor}`,
      leafnodes: { listen: `${host}:${leaf}` },
    }),
  );
  const pid = spawnDetached((await ensureBinaries(() => undefined)).natsServer, ["-c", file], {
    logFile: join(dir, "depot.log"),
  });
  return {
    leafUrl: `nats-leaf://${host}:${leaf}`,
    async leafs() {
      const response = await fetch(`http://${host}:${monitor}/leafz`).catch(() => undefined);
      return response?.ok ? (((await response.json()) as { leafnodes?: number }).leafnodes ?? 0) : -1;
    },
    async stop() {
      await stopPid(pid, { expect: "nats-server" }).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const describeConditions = (cluster: Cluster | undefined) =>
  ((cluster?.status?.conditions ?? []) as Condition[])
    .map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`)
    .join("; ");

describe("a leaf cluster on a hub (story 10)", () => {
  it("connects the edge to the hub's leafnode listener: LeafnodesConnected, and a message crosses", async () => {
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "hub", namespace: hubNamespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources,
        auth: { ...operatorModeAuth(), accountTrustRefs: [{ name: "app" }] },
        leafnodes: { service: { type: "ClusterIP" } },
      },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "edge", namespace: edgeNamespace },
      spec: { version: "2.15.2", replicas: 2, resources, leafRemotes: [{ connectionRef: { name: "hub" } }] },
    } as KubeObject);

    let last: Cluster | undefined;
    const edge = await waitFor(
      "edge LeafnodesConnected",
      async () => {
        last = await readCluster(env.kube, edgeNamespace, "edge");
        return condition(last, "LeafnodesConnected")?.status === "True" ? last : undefined;
      },
      { timeoutMs: 240_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}; ${JSON.stringify(last?.status?.leafRemotes)}`);
    });
    expect(condition(edge, "LeafnodesConnected")).toMatchObject({
      reason: "AllRemotesConnected",
      message: "2 of 2 servers connected to 1 remote",
    });
    // The hub account is the one the creds authenticate into.
    expect(edge.status?.leafRemotes).toEqual([
      { connectionNamespace: edgeNamespace, connectionName: "hub", connected: 2, account: app.publicKey },
    ]);

    // The remote reads its creds from the file projected beside nats.conf.
    const configMap = await env.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: edgeNamespace,
      name: "edge-0-config",
    });
    const config = JSON.parse(configMap?.data["nats.conf"] ?? "{}") as { leafnodes?: unknown };
    expect(config.leafnodes).toEqual({
      remotes: [
        {
          urls: [`nats-leaf://hub-leafnodes.${hubNamespace}.svc:7422`],
          credentials: `/etc/nats-config/${edgeNamespace}_hub.creds`,
        },
      ],
    });
    const copied = await env.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "Secret",
      namespace: edgeNamespace,
      name: "edge-leaf-remotes",
    });
    expect(Object.keys(copied?.data ?? {})).toEqual([`${edgeNamespace}_hub.creds`]);

    // Published at the edge (its global account), heard in the hub's application account.
    const hub: NatsConnection = await connect({
      servers: [`nats://hub-0-0.hub-headless.${hubNamespace}.svc:4222`],
      authenticator: credsAuthenticator(new TextEncoder().encode(app.userCreds)),
      timeout: 5_000,
    });
    const site = await connect({
      servers: [`nats://edge-1-0.edge-headless.${edgeNamespace}.svc:4222`],
      timeout: 5_000,
    });
    try {
      const received: string[] = [];
      const sub = hub.subscribe("sensors.>", { callback: (_err, msg) => void received.push(msg.string()) });
      await hub.flush();
      await waitFor(
        "a reading from the edge at the hub",
        async () => {
          site.publish("sensors.temperature", "21.5");
          await site.flush();
          await new Promise((r) => setTimeout(r, 250));
          return received.includes("21.5");
        },
        { timeoutMs: 60_000, intervalMs: 0 },
      );
      sub.unsubscribe();
    } finally {
      await hub.close();
      await site.close();
    }
  }, 480_000);

  it("binds a leaf that trusts the hub's operator to its system account: it fetches accounts it never cached (C56)", async () => {
    // The second site runs under the hub's operator; its system account dials the hub's as a
    // system user, and LEAFZ is asked over $SYS with the site's own system user.
    await installOperatorTrust(env.kube, edgeNamespace, nats);
    await env.kube.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "hub-system-creds", namespace: edgeNamespace },
      stringData: { "user.creds": nats.systemUserCreds },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "hub-system", namespace: edgeNamespace },
      spec: {
        servers: [`nats-leaf://hub-leafnodes.${hubNamespace}.svc:7422`],
        credentials: { secretKeyRef: { name: "hub-system-creds" } },
      },
    } as KubeObject);
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "site2", namespace: edgeNamespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources,
        auth: operatorModeAuth(),
        leafRemotes: [{ connectionRef: { name: "hub-system" }, localSystemAccount: true }],
      },
    } as KubeObject);
    let last: Cluster | undefined;
    const site = await waitFor(
      "site2 LeafnodesConnected",
      async () => {
        last = await readCluster(env.kube, edgeNamespace, "site2");
        return condition(last, "LeafnodesConnected")?.status === "True" ? last : undefined;
      },
      { timeoutMs: 240_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}; ${JSON.stringify(last?.status?.leafRemotes)}`);
    });
    expect(site.status?.leafRemotes).toEqual([
      {
        connectionNamespace: edgeNamespace,
        connectionName: "hub-system",
        connected: 1,
        account: nats.systemAccount.publicKey,
      },
    ]);
    const configMap = await env.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: edgeNamespace,
      name: "site2-0-config",
    });
    const config = JSON.parse(configMap?.data["nats.conf"] ?? "{}") as {
      leafnodes?: { remotes?: { account?: string }[] };
      resolver?: { type?: string };
    };
    expect(config.leafnodes?.remotes?.[0]?.account).toBe(nats.systemAccount.publicKey);
    // A leaf that preloads no account caches the hub's accounts on demand.
    expect(config.resolver?.type).toBe("cache");

    // The application account was never given to site2: its user still connects there.
    const user = await waitFor(
      "a user of the hub's account on site2",
      () =>
        connect({
          servers: [`nats://site2-0-0.site2-headless.${edgeNamespace}.svc:4222`],
          authenticator: credsAuthenticator(new TextEncoder().encode(app.userCreds)),
          timeout: 5_000,
        }),
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(user.info?.server_name).toBe("site2-0");
    await user.close();
  }, 480_000);

  it("dials a remote in another namespace while a grant admits it; withdrawing the grant drops that remote only", async () => {
    depot = await startDepot();
    const depotNamespace = hubNamespace;
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "depot", namespace: depotNamespace },
      spec: { servers: [depot.leafUrl] },
    } as KubeObject);
    const grant = {
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsReferenceGrant",
      metadata: { name: "edge-to-depot", namespace: depotNamespace },
      spec: {
        from: [{ group: "cluster.nats-operator.io", kind: "NatsCluster", namespace: edgeNamespace }],
        to: [{ group: "nats-operator.io", kind: "NatsConnection", name: "depot" }],
      },
    } as KubeObject;
    await env.kube.create(grant);
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "site3", namespace: edgeNamespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources,
        leafRemotes: [
          { connectionRef: { name: "hub" } },
          { connectionRef: { name: "depot", namespace: depotNamespace } },
        ],
      },
    } as KubeObject);

    let last: Cluster | undefined;
    const remotes = (cluster: Cluster | undefined) =>
      (cluster?.status?.leafRemotes ?? []).map((r) => [r.connectionName, r.connected]);
    const both = await waitFor(
      "site3 connected to both remotes",
      async () => {
        last = await readCluster(env.kube, edgeNamespace, "site3");
        return condition(last, "LeafnodesConnected")?.status === "True" && (await depot?.leafs()) === 1
          ? last
          : undefined;
      },
      { timeoutMs: 240_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}; ${JSON.stringify(last?.status?.leafRemotes)}`);
    });
    expect(condition(both, "LeafnodesConnected")?.message).toBe("1 of 1 server connected to 2 remotes");
    expect(remotes(both).sort()).toEqual([
      ["depot", 1],
      ["hub", 1],
    ]);

    await env.kube.delete({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsReferenceGrant",
      namespace: depotNamespace,
      name: "edge-to-depot",
    });
    const one = await waitFor(
      "the depot remote dropped",
      async () => {
        last = await readCluster(env.kube, edgeNamespace, "site3");
        // Without system credentials the change restarts the server: the hub remote reconnects.
        const hubOnly = JSON.stringify(remotes(last)) === JSON.stringify([["hub", 1]]);
        return hubOnly && (await depot?.leafs()) === 0 ? last : undefined;
      },
      { timeoutMs: 240_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}; ${JSON.stringify(last?.status?.leafRemotes)}`);
    });
    // The hub remote stays connected; the condition names the remote left out and why.
    expect(remotes(one)).toEqual([["hub", 1]]);
    expect(condition(one, "LeafnodesConnected")).toMatchObject({
      status: "False",
      reason: "NoGrant",
      message: expect.stringContaining(
        `left out: ${hubNamespace}/depot: no NatsReferenceGrant in namespace ${hubNamespace} admits this NatsCluster`,
      ) as unknown,
    });
  }, 600_000);
});
