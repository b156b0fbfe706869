// harness: real node
// C15: with auth.systemCredentials, a config change whose every path nats-server 2.15 reloads
// is applied by $SYS reload: every server takes it in the same delivery, no pod restarts, and
// each reports the new revision from its reloaded config. A scale-up reloads the routes of the
// servers already there; one restart-only path restarts them all, one at a time (C17).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, createInbox, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { KubeObject } from "../../../shared/kube/object.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { formatPreview, previewChange } from "../../../functions/step-rollout/index.ts";
import { createOperator, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, condition, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { recordStatus } from "./support/recorder.ts";
import { samplePods } from "./support/sampler.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let nats: TestOperator;

const NAME = "rl";
const SERVERS = [`${NAME}-0`, `${NAME}-1`, `${NAME}-2`];

interface ServerVarz {
  server_name: string;
  start: string;
  config_load_time: string;
  tags?: string[];
  metadata?: Record<string, string>;
  jetstream?: { config?: { max_memory?: number } };
}

const podUrl = (ordinal: number) => `nats://${NAME}-${ordinal}-0.${NAME}-headless.${namespace}.svc:4222`;
const connectAs = (creds: string, servers: string[]): Promise<NatsConnection> =>
  connect({ servers, authenticator: credsAuthenticator(new TextEncoder().encode(creds)), timeout: 5_000 });

/** One $SYS VARZ ping: the answers that come within two seconds, or sooner once `servers` all answered. */
async function pingVarz(servers: readonly string[]): Promise<Map<string, ServerVarz>> {
  const nc = await connectAs(nats.systemUserCreds, [podUrl(0)]);
  try {
    const inbox = createInbox();
    const answers = new Map<string, ServerVarz>();
    const sub = nc.subscribe(inbox);
    const timer = setTimeout(() => sub.unsubscribe(), 2_000);
    const done = (async () => {
      for await (const m of sub) {
        const varz = m.json<{ data: ServerVarz }>().data;
        answers.set(varz.server_name, varz);
        if (servers.every((s) => answers.has(s))) sub.unsubscribe();
      }
    })();
    nc.publish("$SYS.REQ.SERVER.PING.VARZ", JSON.stringify({ cluster: NAME }), { reply: inbox });
    await done;
    clearTimeout(timer);
    return answers;
  } finally {
    await nc.close();
  }
}

/** What each of `servers` says over $SYS VARZ, asked again until every one has answered. */
const varzByServer = (servers: readonly string[] = SERVERS): Promise<Map<string, ServerVarz>> =>
  waitFor(
    `VARZ from ${servers.join(", ")}`,
    async () => {
      const answers = await pingVarz(servers);
      return servers.every((s) => answers.has(s)) ? answers : undefined;
    },
    { timeoutMs: 60_000 },
  );

const podUids = async () =>
  new Map(
    (
      await env.kube.list<KubeObject>({
        apiVersion: "v1",
        kind: "Pod",
        namespace,
        labelSelector: `cluster.nats-operator.io/cluster=${NAME}`,
      })
    ).map((p) => [p.metadata.name, p.metadata.uid]),
  );

const configMap = (server: string) =>
  env.kube.get<KubeObject>({ apiVersion: "v1", kind: "ConfigMap", namespace, name: `${server}-config` });

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("reload");
  operator = await startOperator(env.transport);
  nats = await createOperator();
  await installOperatorTrust(env.kube, namespace, nats);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

/** Waits until the cluster is at rest on a revision other than `previous`, which every server reports. */
function waitForNewRevision(previous: string | undefined, timeoutMs: number): Promise<Cluster> {
  return waitFor(
    "a new revision applied",
    async () => {
      const cluster = await readCluster(env.kube, namespace, NAME);
      const revision = cluster?.status?.config?.revision;
      const atRest =
        cluster?.status?.observedGeneration === cluster?.metadata.generation &&
        condition(cluster, "Progressing")?.reason === "UpToDate";
      return cluster &&
        atRest &&
        revision !== previous &&
        cluster.status?.servers?.every((s) => s.configRevision === revision)
        ? cluster
        : undefined;
    },
    { timeoutMs },
  );
}

const MEMORY_STORE = 192 * 1024 * 1024;
const MiB = 1024 * 1024;

describe("reload instead of restart (C15)", () => {
  it("applies new server tags and a raised memory store limit by reload: no pod restarts, every server reports the new revision, appliedBy Reload", async () => {
    const manifest = quickstart(namespace, NAME);
    manifest.spec["auth"] = operatorModeAuth();
    await env.kube.create(manifest);
    const before = await waitAtRest(env.kube, namespace, 300_000, NAME);
    const uids = await podUids();
    const varzBefore = await varzByServer();
    expect([...varzBefore.keys()].sort()).toEqual(SERVERS);
    expect(varzBefore.get(SERVERS[0] ?? "")?.jetstream?.config?.max_memory).toBe(MEMORY_STORE);

    // Previewed first: every server would take it by reload, none would restart, nothing is written.
    const preview = await previewChange(
      env.kube,
      { namespace, name: NAME },
      {
        ...before,
        spec: {
          ...before.spec,
          serverTags: { zone: "a" },
          jetstream: {
            ...before.spec.jetstream,
            limits: { ...before.spec.jetstream?.limits, maxMemoryStore: "200Mi" },
          },
        },
      },
      new Date(),
    );
    expect(preview.reloads).toEqual(SERVERS);
    expect(preview.restarts.order).toEqual([]);
    expect(preview.blocked).toBeUndefined();
    expect(formatPreview(preview)).toContain(`reload (no restart): ${SERVERS.join(", ")}`);
    expect((await readCluster(env.kube, namespace, NAME))?.metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );

    const progressing = await recordStatus(env.transport, namespace, NAME, (c) =>
      [condition(c, "Progressing")?.reason ?? ""].filter(Boolean),
    );
    await env.kube.patch(
      clusterKey(namespace, NAME),
      { spec: { serverTags: { zone: "a" }, jetstream: { limits: { maxMemoryStore: "200Mi" } } } },
      "merge",
    );
    const after = await waitForNewRevision(before.status?.config?.revision, 240_000);
    progressing.stop();
    const revision = after.status?.config?.revision ?? "";
    expect(after.status?.config).toEqual({ revision, appliedBy: "Reload" });
    expect(progressing.seen.has("ReloadPending")).toBe(true);
    expect(progressing.seen.has("RollingRestart")).toBe(false);
    await waitAtRest(env.kube, namespace, 60_000, NAME);

    // Nothing restarted: the same pods, the same nats-server processes, a later config load.
    expect(await podUids()).toEqual(uids);
    const varzAfter = await varzByServer();
    for (const server of SERVERS) {
      const was = varzBefore.get(server);
      const now = varzAfter.get(server);
      expect(now?.start).toBe(was?.start);
      expect(Date.parse(now?.config_load_time ?? "")).toBeGreaterThan(Date.parse(was?.config_load_time ?? ""));
      expect(now?.tags).toEqual(["zone:a"]);
      expect(now?.jetstream?.config?.max_memory).toBe(200 * MiB);
      expect(now?.metadata?.["config_revision"]).toBe(revision);
      const annotations = (await configMap(server))?.metadata.annotations ?? {};
      expect(annotations["cluster.nats-operator.io/config-apply"]).toBe("Reload");
      expect(annotations["cluster.nats-operator.io/config-revision"]).toBe(revision);
    }

    // The reloaded servers still take an account pushed to their Full resolvers, and its user
    // can reach JetStream on each of them.
    const app = await nats.signAccount("app", { jetstream: true });
    const system = await connectAs(nats.systemUserCreds, [podUrl(0)]);
    const pushed = (await system.request("$SYS.REQ.CLAIMS.UPDATE", app.jwt, { timeout: 5_000 })).json<{
      data?: { code?: number };
    }>();
    await system.close();
    expect(pushed.data?.code).toBe(200);
    for (const ordinal of [0, 1, 2]) {
      const nc = await waitFor(
        `the app account on ${NAME}-${ordinal}`,
        () => connectAs(app.userCreds, [podUrl(ordinal)]),
        { timeoutMs: 30_000 },
      );
      // A server enables JetStream for an account shortly after it stores the JWT: waited for, as
      // an app would.
      const jsm = await waitFor(`JetStream for the app account on ${NAME}-${ordinal}`, () => jetstreamManager(nc), {
        timeoutMs: 30_000,
      });
      const info = await jsm.getAccountInfo();
      expect(info.limits.max_memory).toBe(-1);
      await nc.close();
    }
  }, 600_000);

  it("scales 3 to 4 by creating the new server and reloading the routes of the others", async () => {
    const before = await readCluster(env.kube, namespace, NAME);
    const uids = await podUids();
    const varzBefore = await varzByServer();
    await env.kube.patch(clusterKey(namespace, NAME), { spec: { replicas: 4 } }, "merge");
    const after = await waitForNewRevision(before?.status?.config?.revision, 300_000);
    await waitAtRest(env.kube, namespace, 120_000, NAME);
    const revision = after.status?.config?.revision ?? "";
    // The new server was created at the revision, so the revision counts as applied by restart.
    expect(after.status?.config).toEqual({ revision, appliedBy: "Restart" });
    const podsAfter = await podUids();
    for (const [pod, uid] of uids) expect(podsAfter.get(pod)).toBe(uid);
    const varzAfter = await varzByServer([...SERVERS, `${NAME}-3`]);
    expect([...varzAfter.keys()].sort()).toEqual([...SERVERS, `${NAME}-3`]);
    for (const server of SERVERS) {
      expect(varzAfter.get(server)?.start).toBe(varzBefore.get(server)?.start);
      expect(varzAfter.get(server)?.metadata?.["config_revision"]).toBe(revision);
      expect((await configMap(server))?.metadata.annotations?.["cluster.nats-operator.io/config-apply"]).toBe("Reload");
    }
  }, 600_000);

  it("restarts one server at a time when a restart-only change comes with a reloadable one (C17)", async () => {
    const before = await readCluster(env.kube, namespace, NAME);
    const servers = [...SERVERS, `${NAME}-3`];
    const sampler = samplePods(env.kube, namespace, NAME, servers.length);
    const reasons = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const reason = (await readCluster(env.kube, namespace, NAME).catch(() => undefined))?.status?.config
          ?.restartReason;
        if (reason) reasons.add(reason);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    // A lowered store limit is restart-only, so the new tags come with a restart too.
    await env.kube.patch(
      clusterKey(namespace, NAME),
      { spec: { serverTags: { zone: "b" }, jetstream: { limits: { maxMemoryStore: "180Mi" } } } },
      "merge",
    );
    const after = await waitForNewRevision(before?.status?.config?.revision, 900_000);
    await waitAtRest(env.kube, namespace, 120_000, NAME);
    watching = false;
    await watcher;
    await sampler.stop();
    expect(after.status?.config?.appliedBy).toBe("Restart");
    expect([...reasons]).toEqual(["jetstream.max_memory_store is restart-only"]);
    expect(sampler.maxNotReady).toBeLessThanOrEqual(1);
    expect([...sampler.restarts].sort()).toEqual(servers);
    const varz = await varzByServer(servers);
    for (const server of servers) {
      expect(varz.get(server)?.tags).toEqual(["zone:b"]);
      expect(varz.get(server)?.jetstream?.config?.max_memory).toBe(180 * MiB);
    }
  }, 1_200_000);
});
