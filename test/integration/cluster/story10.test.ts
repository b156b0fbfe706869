// harness: real node
// Story 10 across two Kubernetes clusters: the hub `prod-east` on the harness's control plane under
// the in-process operator, the edge `edge-site-1` on a second control plane under an operator of
// its own (`nats-operator run`). The edge dials the hub's leafnode listener through a
// NatsConnection whose creds are a leafnode-only user of the hub's `telemetry` account, runs
// JetStream in a domain of its own, and keeps a NatsStream made through a NatsConnection to
// itself. Readings published at the edge are stored there and heard in the hub's account; with the
// hub gone the edge reads RemotesDisconnected and its stream keeps acknowledging writes; with the
// hub back the link returns and what was buffered is still at the edge.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { jetstream, jetstreamManager, type PubAck } from "@nats-io/jetstream";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { Condition } from "../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { waitForCondition } from "../jetstream/support/objects.ts";
import { clusterKey, condition, readCluster } from "./support/natscluster.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { resolveAcross, startSecondCluster, type SecondCluster } from "./support/second-cluster.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
/** The hub's operator, in this process. */
let operator: RunningOperator;
/** The edge's Kubernetes cluster and its operator. */
let edgeSite: SecondCluster;
let nats: TestOperator;
let telemetry: SignedAccount;
/** The edge's server pods (name to uid) once it is at rest: the outage must not replace them. */
let edgePods: Record<string, string> = {};
/** The creds of `edge-site-1`, the hub's leafnode-only user that the edge dials with. */
let leafCreds: string;
let hubNamespace: string;
let edgeNamespace: string;

const HUB = "prod-east";
const EDGE = "edge-site-1";
const DOMAIN = "edge-site-1";
const STREAM = "TELEMETRY_BUFFER";

/** The hub as the story's e2e run patches it: no JetStream, no gateway, no leafnode TLS (and one server here). */
const hubCluster = (): KubeObject =>
  ({
    apiVersion: "cluster.nats-operator.io/v1beta1",
    kind: "NatsCluster",
    metadata: { name: HUB, namespace: hubNamespace },
    spec: {
      version: "2.15.2",
      replicas: 1,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
      auth: { ...operatorModeAuth(), accountTrustRefs: [{ name: "telemetry" }] },
      leafnodes: { service: { type: "ClusterIP" } },
    },
  }) as KubeObject;

/** `01-edge.yaml`: the edge cluster, the connection to itself and the stream buffering telemetry. */
const edgeObjects = (): KubeObject[] => [
  {
    apiVersion: "cluster.nats-operator.io/v1beta1",
    kind: "NatsCluster",
    metadata: { name: EDGE, namespace: edgeNamespace },
    spec: {
      version: "2.15.2",
      replicas: 3,
      resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "256Mi" } },
      jetstream: {
        domain: DOMAIN,
        volumeClaimTemplate: { spec: { storageClassName: "standard", resources: { requests: { storage: "20Gi" } } } },
      },
      leafRemotes: [{ connectionRef: { name: "hub" } }],
    },
  } as KubeObject,
  {
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name: "local", namespace: edgeNamespace },
    spec: { servers: [`nats://${EDGE}.${edgeNamespace}.svc:4222`] },
  } as KubeObject,
  {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name: "telemetry-buffer", namespace: edgeNamespace },
    spec: { connectionRef: { name: "local" }, name: STREAM, subjects: ["telemetry.>"], replicas: 3, maxAge: "72h" },
  } as KubeObject,
];

const hubUrl = () => `nats://${HUB}-0-0.${HUB}-headless.${hubNamespace}.svc:4222`;
const edgeUrls = () => [0, 1, 2].map((i) => `nats://${EDGE}-${i}-0.${EDGE}-headless.${edgeNamespace}.svc:4222`);
const withCreds = (creds: string) => credsAuthenticator(new TextEncoder().encode(creds));

const describeConditions = (cluster: Cluster | undefined) =>
  ((cluster?.status?.conditions ?? []) as Condition[])
    .map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`)
    .join("; ");

/** Waits until the edge reads what `accept` wants, quoting its conditions and its operator's log if it never does. */
async function waitForEdge(what: string, accept: (edge: Cluster) => boolean, timeoutMs: number): Promise<Cluster> {
  let last: Cluster | undefined;
  return waitFor(
    what,
    async () => {
      last = await readCluster(edgeSite.kube, edgeNamespace, EDGE);
      return last && accept(last) ? last : undefined;
    },
    { timeoutMs },
  ).catch((error: unknown) => {
    process.stdout.write(edgeSite.operator.log.slice(-30).join(""));
    throw new Error(`${String(error)}; ${describeConditions(last)}; ${JSON.stringify(last?.status?.leafRemotes)}`);
  });
}

async function podsOfEdge(): Promise<Record<string, string>> {
  const pods = await edgeSite.kube.list({ apiVersion: "v1", kind: "Pod", namespace: edgeNamespace });
  return Object.fromEntries(
    pods.filter((p) => p.metadata.name.startsWith(`${EDGE}-`)).map((p) => [p.metadata.name, p.metadata.uid ?? ""]),
  );
}

const current = (edge: Cluster) => edge.status?.observedGeneration === edge.metadata.generation;
const leafLink = (edge: Cluster) => condition(edge, "LeafnodesConnected");

/**
 * Publishes readings at the edge, each stored by the stream, until one is heard at the hub: the
 * hub's interest reaches the edge a moment after the subscription (or the link) is made.
 */
async function readingCrosses(site: NatsConnection, hub: NatsConnection, label: string): Promise<PubAck> {
  const heard = new Set<string>();
  const sub = hub.subscribe("telemetry.>", { callback: (_err, msg) => void heard.add(msg.string()) });
  await hub.flush();
  let n = 0;
  try {
    return await waitFor(
      `a reading (${label}) from the edge heard at the hub`,
      async () => {
        const body = `${label}-${++n}`;
        const ack = await jetstream(site).publish("telemetry.site-1.temperature", body, { msgID: body, retries: 8 });
        await waitFor(`${body} at the hub`, () => heard.has(body), { timeoutMs: 1_000, intervalMs: 50 });
        return ack;
      },
      { timeoutMs: 90_000, intervalMs: 0 },
    );
  } finally {
    sub.unsubscribe();
  }
}

beforeAll(async () => {
  env = await startEnvironment();
  edgeSite = await startSecondCluster("the edge");
  hubNamespace = await env.namespace("hub");
  edgeNamespace = await edgeSite.namespace("edge");
  await resolveAcross(edgeSite, hubNamespace, edgeNamespace);
  operator = await startOperator(env.transport);
  nats = await createOperator();
  telemetry = await nats.signAccount("telemetry");
  // The hub's side: its operator, and the telemetry account its servers preload.
  await installOperatorTrust(env.kube, hubNamespace, nats);
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsAccountTrust",
    metadata: { name: "telemetry", namespace: hubNamespace },
    spec: { publicKey: telemetry.publicKey, jwt: telemetry.jwt },
  } as KubeObject);
  // What the edge's owner is given by the hub's: the listener's address and the creds of
  // `edge-site-1`, a user of `telemetry` that may connect only as a leaf node and only on telemetry.
  leafCreds = await telemetry.signUser("edge-site-1", {
    connectionTypes: ["LEAFNODE"],
    publish: ["telemetry.>"],
    subscribe: ["telemetry.>", "_INBOX.>"],
  });
  await edgeSite.kube.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "edge-site-1-leaf-creds", namespace: edgeNamespace },
    stringData: { "user.creds": leafCreds },
  } as KubeObject);
  await edgeSite.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name: "hub", namespace: edgeNamespace },
    spec: {
      servers: [`nats-leaf://${HUB}-leafnodes.${hubNamespace}.svc:7422`],
      credentials: { secretKeyRef: { name: "edge-site-1-leaf-creds" } },
    },
  } as KubeObject);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await edgeSite?.stop();
  await env?.stop();
}, 120_000);

describe("story 10: an edge cluster with its own JetStream domain, a leaf of a hub in another Kubernetes cluster", () => {
  it("step 01: the edge holds its link from every server, its stream is Ready, and a reading stored at the edge is heard at the hub", async () => {
    await env.kube.create(hubCluster());
    for (const object of edgeObjects()) await edgeSite.kube.create(object);

    const edge = await waitForEdge(
      "the edge at rest and linked",
      (e) =>
        current(e) &&
        condition(e, "Ready")?.reason === "AllServersReady" &&
        condition(e, "Settled")?.reason === "AllGroupsCurrent" &&
        leafLink(e)?.status === "True",
      420_000,
    );
    expect(edge.status?.observedGeneration).toBe(1);
    expect(leafLink(edge)).toMatchObject({
      reason: "AllRemotesConnected",
      message: "3 of 3 servers connected to 1 remote",
    });
    // The hub account is the one the leaf user's creds belong to.
    expect(edge.status?.leafRemotes).toEqual([
      { connectionNamespace: edgeNamespace, connectionName: "hub", connected: 3, account: telemetry.publicKey },
    ]);
    expect(edge.status?.endpoints?.client).toBe(`nats://${EDGE}.${edgeNamespace}.svc:4222`);
    edgePods = await podsOfEdge();
    expect(Object.keys(edgePods).sort()).toEqual([`${EDGE}-0-0`, `${EDGE}-1-0`, `${EDGE}-2-0`]);

    // Each server runs JetStream in the edge's domain.
    const configMap = await edgeSite.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: edgeNamespace,
      name: `${EDGE}-0-config`,
    });
    const config = JSON.parse(configMap?.data["nats.conf"] ?? "{}") as { jetstream?: { domain?: string } };
    expect(config.jetstream?.domain).toBe(DOMAIN);

    // The stream, made through the edge's connection to itself, on the edge's three servers.
    const stream = await waitForCondition(
      edgeSite.kube,
      {
        apiVersion: "jetstream.nats-operator.io/v1beta1",
        kind: "NatsStream",
        namespace: edgeNamespace,
        name: "telemetry-buffer",
      },
      "Ready",
      "True",
      "Synced",
      180_000,
    ).catch((error: unknown) => {
      process.stdout.write(edgeSite.operator.log.slice(-30).join(""));
      throw error;
    });
    expect(stream.status?.observedGeneration).toBe(1);

    const hub = await connect({ servers: [hubUrl()], authenticator: withCreds(telemetry.userCreds), timeout: 5_000 });
    const site = await connect({ servers: edgeUrls(), timeout: 5_000 });
    try {
      const ack = await readingCrosses(site, hub, "linked");
      // Acknowledged by the edge's own stream, in the edge's domain.
      expect(ack).toMatchObject({ stream: STREAM, domain: DOMAIN });
      const info = await (await jetstreamManager(site)).streams.info(STREAM);
      expect(info.config).toMatchObject({ subjects: ["telemetry.>"], num_replicas: 3 });
      expect(info.cluster?.replicas?.length).toBe(2);
    } finally {
      await hub.close();
      await site.close();
    }

    // The leaf user's creds are for leaf nodes only: a client cannot use them on the hub.
    await expect(
      connect({ servers: [hubUrl()], authenticator: withCreds(leafCreds), timeout: 5_000, reconnect: false }),
    ).rejects.toThrow(/authorization violation/i);
  }, 720_000);

  it("step 02: with the hub gone the edge reads RemotesDisconnected, stays Ready, and its stream keeps acknowledging writes", async () => {
    await env.kube.delete(clusterKey(hubNamespace, HUB));
    // Gone with its servers and their StatefulSets (collected after it), so that applying it again starts afresh.
    const left = async () =>
      [
        ...(await env.kube.list({ apiVersion: "apps/v1", kind: "StatefulSet", namespace: hubNamespace })),
        ...(await env.kube.list({ apiVersion: "v1", kind: "Pod", namespace: hubNamespace })),
      ].filter((o) => o.metadata.name.startsWith(`${HUB}-`));
    await waitFor(
      "the hub and its servers deleted",
      async () => (await readCluster(env.kube, hubNamespace, HUB)) === undefined && (await left()).length === 0,
      { timeoutMs: 180_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw error;
    });

    const edge = await waitForEdge("the edge unlinked", (e) => leafLink(e)?.reason === "RemotesDisconnected", 120_000);
    expect(leafLink(edge)).toMatchObject({
      status: "False",
      message: `not connected: ${edgeNamespace}/hub (0 of 3 servers)`,
    });
    expect(edge.status?.leafRemotes).toEqual([
      { connectionNamespace: edgeNamespace, connectionName: "hub", connected: 0, account: telemetry.publicKey },
    ]);
    expect(condition(edge, "Ready")).toMatchObject({ status: "True", reason: "AllServersReady" });

    const site = await connect({ servers: edgeUrls(), timeout: 5_000 });
    try {
      const js = jetstream(site);
      for (let i = 1; i <= 5; i++) {
        const ack = await js.publish("telemetry.site-1.offline", `offline-${i}`, { msgID: `offline-${i}`, retries: 8 });
        expect(ack).toMatchObject({ stream: STREAM, domain: DOMAIN, duplicate: false });
      }
      const info = await (
        await jetstreamManager(site)
      ).streams.info(STREAM, { subjects_filter: "telemetry.site-1.offline" });
      expect(info.state.subjects).toEqual({ "telemetry.site-1.offline": 5 });
    } finally {
      await site.close();
    }
  }, 420_000);

  it("step 03: with the hub applied again the link returns on every server, readings reach the hub, and the buffered ones stayed at the edge", async () => {
    await env.kube.create(hubCluster());
    const edge = await waitForEdge("the edge linked again", (e) => leafLink(e)?.status === "True", 300_000);
    expect(leafLink(edge)).toMatchObject({
      reason: "AllRemotesConnected",
      message: "3 of 3 servers connected to 1 remote",
    });
    expect(edge.status?.leafRemotes).toEqual([
      { connectionNamespace: edgeNamespace, connectionName: "hub", connected: 3, account: telemetry.publicKey },
    ]);
    // The servers redialled by themselves: none was restarted or replaced for the outage.
    expect(await podsOfEdge()).toEqual(edgePods);

    const hub = await waitFor(
      "a telemetry user on the hub",
      () => connect({ servers: [hubUrl()], authenticator: withCreds(telemetry.userCreds), timeout: 5_000 }),
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    const site = await connect({ servers: edgeUrls(), timeout: 5_000 });
    try {
      await readingCrosses(site, hub, "relinked");
      const info = await (
        await jetstreamManager(site)
      ).streams.info(STREAM, { subjects_filter: "telemetry.site-1.offline" });
      expect(info.state.subjects).toEqual({ "telemetry.site-1.offline": 5 });
    } finally {
      await hub.close();
      await site.close();
    }
  }, 480_000);
});
