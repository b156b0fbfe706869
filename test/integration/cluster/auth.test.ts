// harness: real node
// C41: a NatsCluster with spec.auth runs in operator mode. Its servers trust the operator of a
// literal NatsOperatorTrust, preload the system account, and keep accounts in a Full resolver,
// so the system user can reach every server over $SYS and a pushed account can use JetStream.
// A trustRef naming a missing trust holds the cluster (TrustNotFound) until the trust appears;
// so does a missing accountTrustRefs entry (AccountTrustNotFound, C44), whose account is then
// preloaded on every server. Auth added to a running cluster waits for restart-all.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { createOperator, type TestOperator } from "../../support/nats-auth.ts";
import { createStream, publishOnce } from "../jetstream/support/nats-cluster.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, condition, quickstart, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { waitFor } from "../../harness/wait.ts";
import { jsonReplies, replies } from "../support/replies.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let nats: TestOperator;

const podUrl = (cluster: string, ordinal: number) =>
  `nats://${cluster}-${ordinal}-0.${cluster}-headless.${namespace}.svc:4222`;
const connectAs = (creds: string, servers: string[]): Promise<NatsConnection> =>
  connect({ servers, authenticator: credsAuthenticator(new TextEncoder().encode(creds)), timeout: 5_000 });

const literalTrust = (name: string): KubeObject =>
  ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsOperatorTrust",
    metadata: { name, namespace },
    spec: { operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt },
  }) as KubeObject;

const statefulSets = async (cluster: string) =>
  (
    await env.kube.list<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      labelSelector: `cluster.nats-operator.io/cluster=${cluster}`,
    })
  ).map((s) => s.metadata.name);

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("auth");
  operator = await startOperator(env.transport);
  nats = await createOperator();
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("operator mode (C41)", () => {
  it("holds a NatsCluster whose trusts are missing, creating no server, and picks them up once they exist", async () => {
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "held", namespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        auth: { trustRef: { name: "late" }, accountTrustRefs: [{ name: "preloaded" }] },
      },
    } as KubeObject);
    const held = await waitFor(
      "Progressing=False TrustNotFound",
      async () => {
        const c = await readCluster(env.kube, namespace, "held");
        return condition(c, "Progressing")?.reason === "TrustNotFound" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(held, "Progressing")).toMatchObject({
      status: "False",
      message: `NatsOperatorTrust ${namespace}/late does not exist`,
    });
    expect(held.metadata.annotations?.["cluster.nats-operator.io/render-failure-reason"]).toBe("TrustNotFound");
    // render-cluster keeps polling for the trust; nothing of the servers is rendered meanwhile.
    await waitFor(
      "the trust poll",
      async () =>
        env.kube.get({ apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace, name: "held-render-poll" }),
      { timeoutMs: 30_000 },
    );
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await statefulSets("held")).toEqual([]);
    expect(
      await env.kube.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name: "held-0-config" }),
    ).toBeUndefined();

    // No event tells the functions about the trusts: the poll finds them.
    await env.kube.create(literalTrust("late"));
    await waitFor(
      "Progressing=False AccountTrustNotFound",
      async () =>
        condition(await readCluster(env.kube, namespace, "held"), "Progressing")?.reason === "AccountTrustNotFound",
      { timeoutMs: 60_000 },
    );
    expect(await statefulSets("held")).toEqual([]);
    const preloaded = await nats.signAccount("preloaded");
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsAccountTrust",
      metadata: { name: "preloaded", namespace },
      spec: { publicKey: preloaded.publicKey, jwt: preloaded.jwt },
    } as KubeObject);
    const running = await waitAtRest(env.kube, namespace, 180_000, "held").catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-40).join(""));
      throw error;
    });
    expect(running.metadata.annotations?.["cluster.nats-operator.io/render-failure"]).toBeUndefined();
    expect(running.metadata.annotations?.["cluster.nats-operator.io/render-failure-reason"]).toBeUndefined();
    await waitFor(
      "no trust poll once ready",
      async () =>
        (await env.kube.get({
          apiVersion: "sources.knative.dev/v1",
          kind: "PingSource",
          namespace,
          name: "held-render-poll",
        })) === undefined,
      { timeoutMs: 30_000 },
    );
    const sys = await connectAs(nats.systemUserCreds, [podUrl("held", 0)]);
    expect(await replies(sys, "$SYS.REQ.SERVER.PING.STATSZ", { want: 1 })).toHaveLength(1);
    await sys.close();
    // The preloaded account needs no push: its user connects at once.
    const user = await connectAs(preloaded.userCreds, [podUrl("held", 0)]);
    expect(user.info?.server_name).toBe("held-0");
    await user.close();
    // A new operator in the trust is a new revision: the server restarts under it (C31).
    const next = await createOperator({ name: "next-operator" });
    const trust = await env.kube.get<KubeObject>({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsOperatorTrust",
      namespace,
      name: "late",
    });
    const resigned = await next.signAccount("preloaded");
    await env.kube.patch(
      { apiVersion: "nats-operator.io/v1beta1", kind: "NatsAccountTrust", namespace, name: "preloaded" },
      { spec: { publicKey: resigned.publicKey, jwt: resigned.jwt } },
      "merge",
    );
    await env.kube.patch(
      { apiVersion: "nats-operator.io/v1beta1", kind: "NatsOperatorTrust", namespace, name: "late" },
      {
        metadata: { resourceVersion: trust?.metadata.resourceVersion },
        spec: { operatorJWT: next.operatorJWT, systemAccountJWT: next.systemAccount.jwt },
      },
      "merge",
    );
    const moved = await waitFor(
      "held-0 running under the new operator",
      async () => {
        const c = await waitAtRest(env.kube, namespace, 5_000, "held").catch(() => undefined);
        return c &&
          c.status?.config?.revision !== running.status?.config?.revision &&
          c.status?.servers?.[0]?.configRevision === c.status?.config?.revision
          ? c
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 2_000 },
    );
    expect(moved.status?.rollout).toBeUndefined();
    const nextSys = await connectAs(next.systemUserCreds, [podUrl("held", 0)]);
    expect(await replies(nextSys, "$SYS.REQ.SERVER.PING.STATSZ", { want: 1 })).toHaveLength(1);
    await nextSys.close();

    // Free the pod before the three-server cluster (no JetStream here, so no finalizer waits).
    await env.kube.delete(clusterKey(namespace, "held"));
    await waitFor(
      "held's server gone",
      async () => (await env.kube.get({ apiVersion: "v1", kind: "Pod", namespace, name: "held-0-0" })) === undefined,
      { timeoutMs: 120_000 },
    );
  }, 600_000);

  it("runs three JetStream servers under the operator: the system user reaches all of them, and a pushed account keeps an R3 stream", async () => {
    await env.kube.create(literalTrust("acme"));
    await env.kube.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sys-creds", namespace },
      stringData: { "user.creds": nats.systemUserCreds },
    } as KubeObject);
    const manifest = quickstart(namespace, "secure");
    manifest.spec["auth"] = { trustRef: { name: "acme" }, systemCredentials: { secretKeyRef: { name: "sys-creds" } } };
    await env.kube.create(manifest);
    const cluster = await waitAtRest(env.kube, namespace, 300_000, "secure").catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-40).join(""));
      throw error;
    });
    expect(cluster.status?.servers?.map((s) => [s.name, s.ready, s.configRevision])).toEqual(
      ["secure-0", "secure-1", "secure-2"].map((name) => [name, true, cluster.status?.config?.revision]),
    );
    const config = await env.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace,
      name: "secure-0-config",
    });
    expect(JSON.parse(config?.data["nats.conf"] ?? "{}")).toMatchObject({
      operator: nats.operatorJWT,
      system_account: nats.systemAccount.publicKey,
      resolver: { type: "full", dir: "/data/resolver", allow_delete: true },
      resolver_preload: { [nats.systemAccount.publicKey]: nats.systemAccount.jwt },
    });

    const servers = [0, 1, 2].map((i) => podUrl("secure", i));
    const sys = await connectAs(nats.systemUserCreds, servers);
    // Ready servers may still be joining the system account's routes: ask until all three answer.
    const answering = await waitFor(
      "STATSZ from all three servers",
      async () => {
        const statsz = await jsonReplies<{ server?: { name?: string } }>(sys, "$SYS.REQ.SERVER.PING.STATSZ");
        const names = statsz.map((a) => a.server?.name).sort();
        return names.length === 3 ? names : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(answering).toEqual(["secure-0", "secure-1", "secure-2"]);

    const app = await nats.signAccount("app", { jetstream: true });
    const pushed = (await sys.request("$SYS.REQ.CLAIMS.UPDATE", app.jwt, { timeout: 5_000 })).json<{
      data?: { code?: number; account?: string };
      error?: unknown;
    }>();
    expect(pushed).toMatchObject({ data: { code: 200, account: app.publicKey } });
    await sys.close();

    // The account reaches every Full resolver; its user creates an R3 stream and publishes to it.
    const nc = await waitFor(
      "the app account on every server",
      async () => {
        const conns = await Promise.all(servers.map((s) => connectAs(app.userCreds, [s])));
        await Promise.all(conns.slice(1).map((c) => c.close()));
        return conns[0];
      },
      { timeoutMs: 30_000 },
    );
    // A meta group just at rest may refuse the first R3 stream: createStream asks until it is made.
    await createStream(nc, { name: "ORDERS", subjects: ["orders.>"], num_replicas: 3 });
    const jsm = await jetstreamManager(nc);
    const ack = await publishOnce(nc, "orders.1", "first", "orders-1");
    expect(ack.stream).toBe("ORDERS");
    const info = await jsm.streams.info("ORDERS");
    expect(info.config.num_replicas).toBe(3);
    expect(info.state.messages).toBe(1);
    expect([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort()).toEqual([
      "secure-0",
      "secure-1",
      "secure-2",
    ]);
    await nc.close();
  }, 600_000);

  it("holds auth added to a running cluster (AuthChangeBlocked) until restart-all restarts every server at once", async () => {
    await env.kube.create(literalTrust("added"));
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "plain", namespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
      },
    } as KubeObject);
    const before = await waitAtRest(env.kube, namespace, 180_000, "plain");
    const server = await env.kube.get<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      name: "plain-0",
    });

    await env.kube.patch(clusterKey(namespace, "plain"), { spec: { auth: { trustRef: { name: "added" } } } }, "merge");
    const held = await waitFor(
      "Progressing=False AuthChangeBlocked",
      async () => {
        const c = await readCluster(env.kube, namespace, "plain");
        return condition(c, "Progressing")?.reason === "AuthChangeBlocked" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(held, "Progressing")?.message).toContain("cluster.nats-operator.io/restart-all");
    expect(held.status?.rollout?.pending).toEqual(["plain-0"]);
    const unchanged = await env.kube.get<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      name: "plain-0",
    });
    expect(unchanged?.metadata.generation).toBe(server?.metadata.generation);

    await env.kube.patch(
      clusterKey(namespace, "plain"),
      { metadata: { annotations: { "cluster.nats-operator.io/restart-all": "" } } },
      "merge",
    );
    const after = await waitFor(
      "plain at rest in operator mode",
      async () => {
        const c = await waitAtRest(env.kube, namespace, 5_000, "plain").catch(() => undefined);
        return c &&
          c.status?.config?.revision !== before.status?.config?.revision &&
          c.status?.servers?.[0]?.configRevision === c.status?.config?.revision
          ? c
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 2_000 },
    );
    expect(after.metadata.annotations?.["cluster.nats-operator.io/restart-all"]).toBeUndefined();
    const sys = await connectAs(nats.systemUserCreds, [podUrl("plain", 0)]);
    expect(await replies(sys, "$SYS.REQ.SERVER.PING.STATSZ", { want: 1 })).toHaveLength(1);
    await sys.close();
  }, 600_000);
});
