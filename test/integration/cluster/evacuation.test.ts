// Scale-down and replace-server with JetStream data, carried out as the system user the
// NatsCluster names: each leaving server is evacuated, removed from the meta group and deleted,
// one at a time, while an R3 stream keeps taking publishes and loses no acknowledged message.
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

const NAME = "ev";
const authenticator = (creds: string) => credsAuthenticator(new TextEncoder().encode(creds));
const podUrl = (ordinal: number) => `nats://${NAME}-${ordinal}-0.${NAME}-headless.${namespace}.svc:4222`;
const statefulSets = async () =>
  (
    await env.kube.list<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      labelSelector: `cluster.nats-operator.io/cluster=${NAME}`,
    })
  )
    .map((s) => s.metadata.name)
    .sort();
const claim = (server: string) =>
  env.kube.get<KubeObject>({ apiVersion: "v1", kind: "PersistentVolumeClaim", namespace, name: `data-${server}-0` });
const statefulSet = (server: string) =>
  env.kube.get<KubeObject>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace, name: server });

/** Waits, and on a timeout tells what the NatsCluster and the operator were doing. */
async function waitExplained<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  try {
    return await waitFor(what, probe, { timeoutMs });
  } catch (error) {
    const status = (await readCluster(env.kube, namespace, NAME))?.status;
    const outcomes = operator.deliveries.slice(-8).map((d) => `${d.fn} ${JSON.stringify(d.outcome)}`);
    throw new Error(
      `${String(error)}\nstatus: ${JSON.stringify({ conditions: status?.conditions, rollout: status?.rollout, removals: status?.removals })}\nlast deliveries:\n${outcomes.join("\n")}`,
      { cause: error },
    );
  }
}

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("evac");
  operator = await startOperator(env.transport);
  nats = await createOperator();
  app = await nats.signAccount("app", { jetstream: true });
  await installOperatorTrust(env.kube, namespace, nats);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("scale-down and replacement with JetStream data", () => {
  it("3 to 5, replace-server, then 5 to 3: each leaving server is evacuated first and no acknowledged message is lost", async () => {
    const manifest = quickstart(namespace, NAME);
    manifest.spec["auth"] = operatorModeAuth();
    await env.kube.create(manifest);
    await waitAtRest(env.kube, namespace, 300_000, NAME);

    // The application account reaches every Full resolver through the system account.
    const system = await connect({ servers: [podUrl(0)], authenticator: authenticator(nats.systemUserCreds) });
    const pushed = await system.request("$SYS.REQ.CLAIMS.UPDATE", app.jwt, { timeout: 5_000 });
    expect(pushed.json<{ data?: { code?: number } }>().data?.code).toBe(200);
    await system.close();
    // The other resolvers learn it from the one pushed to a moment later: wait until each has it.
    for (const ordinal of [0, 1, 2]) {
      await waitFor(
        `the app account with JetStream on ${NAME}-${ordinal}`,
        async () => {
          const nc = await connect({ servers: [podUrl(ordinal)], authenticator: authenticator(app.userCreds) });
          try {
            return (await (await jetstreamManager(nc)).getAccountInfo()) !== undefined;
          } finally {
            await nc.close();
          }
        },
        { timeoutMs: 30_000 },
      );
    }

    const publisher = await startPublisher([0, 1, 2].map(podUrl), "ORDERS", "orders", 50, app.userCreds);
    await waitFor("publishes acknowledged", async () => publisher.acked.size > 20, { timeoutMs: 30_000 });

    await env.kube.patch(clusterKey(namespace, NAME), { spec: { replicas: 5 } }, "merge");
    // The servers already there take the longer route list by reload; the new ones are created.
    const five = await waitAtRest(env.kube, namespace, 600_000, NAME);
    expect(five.status?.servers?.map((s) => s.name)).toEqual([0, 1, 2, 3, 4].map((i) => `${NAME}-${i}`));

    // Replace ev-1: it comes back under its name on a new, empty claim.
    const phases = await recordStatus(env.transport, namespace, NAME, (c) =>
      (c.status?.removals ?? []).map((r) => `${r.name}:${r.phase}`),
    );
    const [oldServer, oldClaim] = await Promise.all([statefulSet(`${NAME}-1`), claim(`${NAME}-1`)]);
    await env.kube.patch(
      clusterKey(namespace, NAME),
      { metadata: { annotations: { "cluster.nats-operator.io/replace-server": `${NAME}-1` } } },
      "merge",
    );
    await waitExplained(
      "ev-1 recreated",
      async () => {
        const sts = await statefulSet(`${NAME}-1`);
        return sts !== undefined && sts.metadata.uid !== oldServer?.metadata.uid;
      },
      300_000,
    );
    // A replaced server rejoins the meta group only once its 5-minute removal tombstone lapses.
    const replaced = await waitAtRest(env.kube, namespace, 900_000, NAME);
    expect(replaced.status?.removals).toBeUndefined();
    expect((await claim(`${NAME}-1`))?.metadata.uid).not.toBe(oldClaim?.metadata.uid);
    expect([...phases.seen]).toEqual(
      expect.arrayContaining([`${NAME}-1:Evacuating`, `${NAME}-1:Deleting`, `${NAME}-1:Rejoining`]),
    );

    // Back to 3: ev-4, then ev-3, each evacuated before it goes.
    phases.seen.clear();
    await env.kube.patch(clusterKey(namespace, NAME), { spec: { replicas: 3 } }, "merge");
    await waitExplained(
      "the scale-down to start",
      async () => (await readCluster(env.kube, namespace, NAME))?.status?.removals !== undefined,
      60_000,
    );
    const three = await waitAtRest(env.kube, namespace, 600_000, NAME);
    phases.stop();
    expect([...phases.seen]).toEqual(expect.arrayContaining([`${NAME}-4:Evacuating`, `${NAME}-3:Evacuating`]));
    expect(three.status?.servers?.map((s) => s.name)).toEqual([`${NAME}-0`, `${NAME}-1`, `${NAME}-2`]);
    expect(await statefulSets()).toEqual([`${NAME}-0`, `${NAME}-1`, `${NAME}-2`]);
    expect(await claim(`${NAME}-3`)).toBeUndefined();
    expect(await claim(`${NAME}-4`)).toBeUndefined();

    await publisher.stop();
    expect(await publisher.missing()).toEqual([]);
    await publisher.close();

    // The stream kept its three replicas, all on the servers that remain.
    const client = await connect({ servers: [podUrl(0)], authenticator: authenticator(app.userCreds) });
    const info = await (await jetstreamManager(client)).streams.info("ORDERS");
    await client.close();
    const peers = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort();
    expect(peers).toEqual([`${NAME}-0`, `${NAME}-1`, `${NAME}-2`]);
  }, 2_400_000);
});
