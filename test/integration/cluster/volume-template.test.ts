// A `jetstream.volumeClaimTemplate` change (C36) on a three-server JetStream cluster with an R3
// stream: every server is replaced under its own name on a new claim, one at a time, each
// removed from the meta group first. With three servers an R3 stream has nowhere to move, so it
// runs on two copies while a server is away and grows back to three once the server rejoins, before
// the next server goes; an application publishing throughout loses no acknowledged message.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { startPublisher } from "./support/publisher.ts";
import { recordStatus } from "./support/recorder.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let nats: TestOperator;
let app: SignedAccount;

const NAME = "vt";
const SERVERS = [0, 1, 2].map((i) => `${NAME}-${i}`);
const authenticator = (creds: string) => credsAuthenticator(new TextEncoder().encode(creds));
const podUrl = (server: string) => `nats://${server}-0.${NAME}-headless.${namespace}.svc:4222`;
const claim = (server: string) =>
  env.kube.get<KubeObject & { spec?: { resources?: { requests?: { storage?: string } } } }>({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    namespace,
    name: `data-${server}-0`,
  });

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("volume-template");
  operator = await startOperator(env.transport);
  nats = await createOperator();
  app = await nats.signAccount("app", { jetstream: true });
  await installOperatorTrust(env.kube, namespace, nats);
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsAccountTrust",
    metadata: { name: "app", namespace },
    spec: { publicKey: app.publicKey, jwt: app.jwt },
  } as KubeObject);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("a volume claim template change (C36)", () => {
  it("replaces every server on a new claim, one at a time, an R3 stream on three servers losing no acknowledged message", async () => {
    const manifest = quickstart(namespace, NAME);
    manifest.spec["auth"] = { ...operatorModeAuth(), accountTrustRefs: [{ name: "app" }] };
    await env.kube.create(manifest);
    await waitAtRest(env.kube, namespace, 300_000, NAME);
    const before = new Map(await Promise.all(SERVERS.map(async (s) => [s, (await claim(s))?.metadata.uid] as const)));

    const publisher = await startPublisher(SERVERS.map(podUrl), "ORDERS", "orders", 50, app.userCreds);
    await waitFor("publishes acknowledged", async () => publisher.acked.size > 20, { timeoutMs: 60_000 });

    // Servers waiting their turn are listed as Requested; only one may be further along.
    const phases = await recordStatus(env.transport, namespace, NAME, (c) => {
      const removals = c.status?.removals ?? [];
      const underWay = removals.filter((r) => r.phase !== "Requested").length;
      return [...removals.map((r) => `${r.name}:${r.phase}`), `under way:${underWay}`];
    });
    await env.kube.patch(
      clusterKey(namespace, NAME),
      {
        spec: {
          jetstream: {
            volumeClaimTemplate: {
              spec: { storageClassName: "standard", resources: { requests: { storage: "21Gi" } } },
            },
          },
        },
      },
      "merge",
    );
    await waitFor(
      "the replacement to start",
      async () => ((await readCluster(env.kube, namespace, NAME))?.status?.removals ?? []).length > 0,
      { timeoutMs: 120_000 },
    );
    // Each replaced server rejoins the meta group only once its 5-minute removal tombstone lapses.
    const replaced = await waitFor(
      "every server on a new 21Gi claim, at rest",
      async () => {
        for (const server of SERVERS) {
          const c = await claim(server);
          if (c?.metadata.uid === before.get(server) || c?.spec?.resources?.requests?.storage !== "21Gi") return false;
        }
        return waitAtRest(env.kube, namespace, 1_000, NAME).catch(() => undefined);
      },
      { timeoutMs: 1_500_000, intervalMs: 5_000 },
    );
    phases.stop();
    expect(replaced.status?.removals).toBeUndefined();
    expect(replaced.status?.servers?.map((s) => s.name)).toEqual(SERVERS);
    // One server at a time, each deleted and back under its name.
    expect([...phases.seen].filter((p) => p.startsWith("under way:")).sort()).toEqual(["under way:0", "under way:1"]);
    for (const server of SERVERS)
      expect([...phases.seen]).toEqual(expect.arrayContaining([`${server}:Deleting`, `${server}:Rejoining`]));

    // Publishing went on throughout; every acknowledged message is still there, on three copies again.
    const client = await connect({ servers: SERVERS.map(podUrl), authenticator: authenticator(app.userCreds) });
    try {
      const info = await waitFor(
        "ORDERS back on three current copies",
        async () => {
          const i = await (await jetstreamManager(client)).streams.info("ORDERS");
          const replicas = i.cluster?.replicas ?? [];
          return replicas.length === 2 && replicas.every((r) => r.current) ? i : undefined;
        },
        { timeoutMs: 300_000 },
      );
      expect([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort()).toEqual(SERVERS);
    } finally {
      await client.close();
    }
    await publisher.stop();
    expect(await publisher.missing()).toEqual([]);
    await publisher.close();
  }, 2_100_000);
});
