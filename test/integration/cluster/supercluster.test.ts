// harness: real node
// Story 6 across two Kubernetes clusters: `east` (home) on the harness's control plane and `west` on
// a second, independent one (own API server, etcd and kubelet), each with its own operator, join
// one supercluster over gateways the operator renders (C46–C50), with TLS from Secrets the user
// made (a private CA, peers verified both ways); GatewaysConnected on both, observed over $SYS
// GATEWAYZ. The operator and its signing keys live only in east, where sign-account runs: west's
// controller users are NatsUsers signed in east whose creds Secrets are carried to west, and an
// account signed in east is pushed over $SYS across the gateways to west's servers, where its user
// exchanges messages with east. A gateway without TLS is refused (C47) unless the operator allows
// it; no server joins the meta group on a claim that predates its NatsCluster, and a running
// cluster whose servers run a meta group of their own is not given the remotes (OwnMetaGroup).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { jetstreamManager } from "@nats-io/jetstream";
import { publishOnce } from "../jetstream/support/nats-cluster.ts";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { Condition } from "../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { type Cluster, ALLOW_GATEWAY_WITHOUT_TLS_ENV } from "../../../functions/cluster/index.ts";
import { functionNames } from "../../../functions/catalog.ts";
import { signAccount } from "../../../functions/sign-account/index.ts";
import { SYSTEM_CONNECTION_ENV } from "../../../functions/sign-account/servers/system-connection.ts";
import { pingConnectivity } from "../../../functions/step-rollout/servers/connectivity.ts";
import { askMetaLeader } from "../../../functions/step-rollout/servers/meta-leader.ts";
import type { Kube } from "../../../shared/kube/client.ts";
import { resolveAcross, startSecondCluster, type SecondCluster } from "./support/second-cluster.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { condition, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { TRUST } from "./support/operator-mode.ts";
import { createCertificateAuthority, tlsSecret, type CertificateAuthority } from "./support/tls-secrets.ts";
import { replies } from "../support/replies.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
/** The second Kubernetes cluster, where west runs under an operator of its own: `nats-operator run`. */
let second: SecondCluster | undefined;
let ca: CertificateAuthority;
/** A system user's creds with no preset (east's `admin`): what the test reads the servers with. */
let admin: string;
/** Namespace of each member cluster. */
const namespaces: Record<"east" | "west", string> = { east: "", west: "" };

const previousSystemConnection = process.env[SYSTEM_CONNECTION_ENV];

const AUTH = "auth.nats-operator.io/v1beta1";
type Secret = KubeObject & { type?: string; data?: Record<string, string> };
type AuthObject = KubeObject & {
  status?: {
    jwt?: string;
    publicKey?: string;
    systemAccount?: { jwt?: string };
    distribution?: { servers?: number; current?: number };
    conditions?: Condition[];
  };
};
/** Each member's system credentials: a cluster-controller NatsUser's creds, signed in east. */
const systemCredentials = { east: "cluster-controller-creds", west: "west-cluster-controller-creds" };

const authObject = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: AUTH, kind, metadata: { name, namespace: namespaces.east }, spec }) as KubeObject;
const systemUser = (name: string, preset?: string) =>
  authObject("NatsUser", name, {
    accountRef: { kind: "NatsSystemAccount", name: "sys" },
    ...(preset ? { preset } : {}),
  });
const readEast = <T extends KubeObject>(apiVersion: string, kind: string, name: string) =>
  env.kube.get<T>({ apiVersion, kind, namespace: namespaces.east, name });
/** A creds Secret east's sign-account wrote, once it holds a user's creds. */
const credsSecret = (name: string) =>
  waitFor(
    `the Secret ${name}`,
    async () => {
      const secret = await readEast<Secret>("v1", "Secret", name);
      const creds = Buffer.from(secret?.data?.["user.creds"] ?? "", "base64").toString("utf8");
      return creds.includes("NATS USER JWT") ? { secret: secret as Secret, creds } : undefined;
    },
    { timeoutMs: 90_000 },
  ).catch((error: unknown) => {
    process.stdout.write(operator.log.slice(-40).join(""));
    throw error;
  });

const gatewayHost = (name: "east" | "west") => `${name}-gateway.${namespaces[name]}.svc`;
const kubeOf = (name: "east" | "west"): Kube => (name === "west" && second ? second.kube : env.kube);
const operatorLog = (name: "east" | "west"): string[] =>
  name === "west" && second ? second.operator.log : operator.log;

function member(name: "east" | "west"): KubeObject {
  return {
    apiVersion: "cluster.nats-operator.io/v1beta1",
    kind: "NatsCluster",
    metadata: { name, namespace: namespaces[name] },
    spec: {
      version: "2.15.2",
      replicas: 2,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
      // One meta group spans the supercluster: its leader is elected over the gateways.
      jetstream: { storage: "Ephemeral" },
      // The literal trust, the same in both clusters; west's system user was signed in east.
      auth: { trustRef: { name: TRUST }, systemCredentials: { secretKeyRef: { name: systemCredentials[name] } } },
      gateway: {
        discovery: "Explicit",
        // The same list on both members: each skips its own entry.
        remotes: [
          { name: "east", url: `tls://${gatewayHost("east")}:7222` },
          { name: "west", url: `tls://${gatewayHost("west")}:7222` },
        ],
        tls: { secretRef: { name: `${name}-gateway-certs` } },
        service: { type: "ClusterIP", annotations: { "example.com/exposed-by": "test" } },
        advertise: `${gatewayHost(name)}:7222`,
      },
    },
  } as KubeObject;
}

const podUrl = (name: "east" | "west", ordinal: number) =>
  `nats://${name}-${ordinal}-0.${name}-headless.${namespaces[name]}.svc:4222`;
const connectAs = (creds: string, servers: string[]): Promise<NatsConnection> =>
  connect({ servers, authenticator: credsAuthenticator(new TextEncoder().encode(creds)), timeout: 5_000 });

const describeConditions = (cluster: Cluster | undefined) =>
  ((cluster?.status?.conditions ?? []) as Condition[])
    .map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`)
    .join("; ");

async function waitGatewaysConnected(name: "east" | "west", timeoutMs: number): Promise<Cluster> {
  let last: Cluster | undefined;
  return waitFor(
    `${name} GatewaysConnected`,
    async () => {
      last = await readCluster(kubeOf(name), namespaces[name], name);
      return condition(last, "GatewaysConnected")?.status === "True" ? last : undefined;
    },
    { timeoutMs },
  ).catch((error: unknown) => {
    process.stdout.write(operatorLog(name).slice(-30).join(""));
    throw new Error(
      `${String(error)}; ${describeConditions(last)}; gateways ${JSON.stringify(last?.status?.gateways)}`,
    );
  });
}

beforeAll(async () => {
  env = await startEnvironment();
  // West's operator runs every function but sign-account: no signing key and no auth object there.
  second = await startSecondCluster("west", {
    FUNCTIONS: functionNames.filter((name) => name !== "sign-account").join(","),
  });
  namespaces.east = await env.namespace("east");
  namespaces.west = await second.namespace("west");
  // On real nodes each cluster's DNS answers the other's namespace by asking the other's CoreDNS.
  await resolveAcross(second, namespaces.east, namespaces.west);
  // East's operator signs, and pushes JWTs over the system connection `system` (read per delivery).
  process.env[SYSTEM_CONNECTION_ENV] = `${namespaces.east}/system`;
  operator = await startOperator(env.transport, {
    extraFunctions: [signAccount],
    extraKinds: ["NatsOperator", "NatsSystemAccount", "NatsAccount", "NatsUser", "Secret", "NatsConnection"],
  });
  await env.kube.create(authObject("NatsOperator", "main", { systemAccountRef: { name: "sys" } }));
  await env.kube.create(authObject("NatsSystemAccount", "sys", { operatorRef: { name: "main" } }));
  await env.kube.create(systemUser("cluster-controller", "cluster-controller"));
  await env.kube.create(systemUser("auth-controller", "auth-controller"));
  await env.kube.create(systemUser("admin"));
  // West's controllers, declared in east: their creds Secrets are carried to west.
  await env.kube.create(systemUser("west-cluster-controller", "cluster-controller"));
  await env.kube.create(systemUser("west-jetstream-controller", "jetstream-controller"));
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name: "system", namespace: namespaces.east },
    spec: {
      servers: [podUrl("east", 0), podUrl("east", 1)],
      credentials: { secretKeyRef: { name: "auth-controller-creds" } },
    },
  } as KubeObject);
  // The operator JWT and the system account's, as GitOps replicates them to both clusters.
  const signed = await waitFor(
    "the operator's JWTs",
    async () => {
      const o = await readEast<AuthObject>(AUTH, "NatsOperator", "main");
      return o?.status?.jwt && o.status.systemAccount?.jwt ? o.status : undefined;
    },
    { timeoutMs: 90_000 },
  ).catch((error: unknown) => {
    process.stdout.write(operator.log.slice(-40).join(""));
    throw error;
  });
  admin = (await credsSecret("admin-creds")).creds;
  await credsSecret(systemCredentials.east);
  ca = await createCertificateAuthority();
  for (const name of ["east", "west"] as const) {
    const namespace = namespaces[name];
    await kubeOf(name).create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsOperatorTrust",
      metadata: { name: TRUST, namespace },
      spec: { operatorJWT: signed.jwt, systemAccountJWT: signed.systemAccount?.jwt },
    } as KubeObject);
    const certificate = await ca.issue(name, [gatewayHost(name), `${gatewayHost(name)}.cluster.local`]);
    await kubeOf(name).create(tlsSecret(namespace, `${name}-gateway-certs`, certificate));
  }
}, 300_000);

afterAll(async () => {
  process.env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] = "";
  await operator?.stop();
  await second?.stop();
  await env?.stop();
  await ca?.dispose();
  if (previousSystemConnection === undefined) Reflect.deleteProperty(process.env, SYSTEM_CONNECTION_ENV);
  else process.env[SYSTEM_CONNECTION_ENV] = previousSystemConnection;
}, 120_000);

describe("a supercluster over gateways (story 6)", () => {
  it("joins east and west over verified TLS, west's system user signed in east: GatewaysConnected on both", async () => {
    // West's controller creds, signed in east, copied to west as External Secrets would.
    for (const name of [systemCredentials.west, "west-jetstream-controller-creds"]) {
      const { secret } = await credsSecret(name);
      await kubeOf("west").create({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: namespaces.west },
        ...(secret.type ? { type: secret.type } : {}),
        data: secret.data,
      } as KubeObject);
    }
    await kubeOf("east").create(member("east"));
    await kubeOf("west").create(member("west"));
    const east = await waitGatewaysConnected("east", 240_000);
    const west = await waitGatewaysConnected("west", 120_000);

    expect(condition(east, "GatewaysConnected")).toMatchObject({
      reason: "AllMembersReachable",
      message: "1 of 1 remote members connected",
    });
    // Every east server dials west, and west's servers dial in.
    expect(east.status?.gateways?.map((g) => [g.name, g.connected, g.outbound])).toEqual([["west", true, 2]]);
    expect(east.status?.gateways?.[0]?.inbound).toBeGreaterThanOrEqual(1);
    expect(west.status?.gateways?.map((g) => [g.name, g.connected, g.outbound])).toEqual([["east", true, 2]]);
    expect(east.status?.endpoints?.gateway).toBe(`${gatewayHost("east")}:7222`);

    // The rendered gateway: its own name, the other member only, the private CA verifying peers.
    const configMap = await env.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: namespaces.east,
      name: "east-0-config",
    });
    const config = JSON.parse(configMap?.data["nats.conf"] ?? "{}") as { gateway?: Record<string, unknown> };
    expect(config.gateway).toEqual({
      name: "east",
      listen: "0.0.0.0:7222",
      advertise: `${gatewayHost("east")}:7222`,
      reject_unknown: true,
      gateways: [{ name: "west", urls: [`tls://${gatewayHost("west")}:7222`] }],
      tls: {
        cert_file: "/etc/nats-gateway-tls/tls.crt",
        key_file: "/etc/nats-gateway-tls/tls.key",
        ca_file: "/etc/nats-gateway-tls/ca.crt",
        verify: true,
      },
    });
    const service = await env.kube.get<KubeObject & { spec: Record<string, unknown> }>({
      apiVersion: "v1",
      kind: "Service",
      namespace: namespaces.east,
      name: "east-gateway",
    });
    expect(service?.metadata.annotations).toMatchObject({ "example.com/exposed-by": "test" });
    expect(service?.spec).toMatchObject({ type: "ClusterIP", publishNotReadyAddresses: true });

    // What GatewaysConnected is judged from: each server answers $SYS GATEWAYZ (filtered to its
    // cluster), naming its outbound connection to the other, asked as each cluster's operator asks,
    // with its cluster-controller preset user; west's is the one signed in east and carried over.
    for (const [name, cluster, other] of [
      ["east", east, "west"],
      ["west", west, "east"],
    ] as const) {
      const { creds } = await credsSecret(systemCredentials[name]);
      const system = await connectAs(creds, [podUrl(name, 0)]);
      try {
        const servers = [`${name}-0`, `${name}-1`];
        const answers = await pingConnectivity(system, cluster, servers, { gateways: true, leafs: false });
        expect(answers.map((a) => a.server).sort()).toEqual(servers);
        for (const answer of answers) expect(answer.gatewayz?.outbound_gateways?.[other]?.connection).toBeDefined();
      } finally {
        await system.close();
      }
    }
  }, 480_000);

  it("pushes an account signed in east over $SYS across the gateways: every west server holds its JWT, and its user on west talks to east", async () => {
    // Nothing preloads this account in either cluster: west learns it from east's push alone.
    await env.kube.create(
      authObject("NatsAccount", "app", {
        operatorRef: { name: "main" },
        limits: { jetstream: { memoryStorage: "64Mi", diskStorage: "64Mi", streams: 10 } },
      }),
    );
    await env.kube.create(authObject("NatsUser", "app-user", { accountRef: { kind: "NatsAccount", name: "app" } }));
    const distributed = (a: AuthObject | undefined) => a?.status?.conditions?.find((c) => c.type === "Distributed");
    let last: AuthObject | undefined;
    // The roster is every server answering STATSZ over $SYS: east's two and, across the gateways, west's two.
    const account = await waitFor(
      "app distributed to all 4 servers",
      async () => {
        last = await readEast<AuthObject>(AUTH, "NatsAccount", "app");
        return distributed(last)?.status === "True" && last?.status?.distribution?.servers === 4 ? last : undefined;
      },
      { timeoutMs: 180_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-40).join(""));
      throw new Error(
        `${String(error)}; ${JSON.stringify(last?.status?.distribution)}; ${JSON.stringify(distributed(last))}`,
      );
    });
    expect(distributed(account)).toMatchObject({
      reason: "AllServersCurrent",
      message: "4 of 4 servers hold this JWT",
    });
    const jwt = account.status?.jwt;

    // Asked from a west server, every server of the supercluster answers the lookup with that JWT.
    const onWest = await connectAs(admin, [podUrl("west", 0)]);
    let held: string[] = [];
    try {
      await waitFor(
        "every server holding app's JWT",
        async () => {
          held = (
            await replies(onWest, `$SYS.REQ.ACCOUNT.${account.status?.publicKey}.CLAIMS.LOOKUP`, { want: 4 })
          ).map((j) => j.trim());
          return held.length === 4 && held.every((j) => j === jwt) ? true : undefined;
        },
        { timeoutMs: 60_000 },
      ).catch(() => expect(held).toEqual([jwt, jwt, jwt, jwt]));
      // West's jetstream-controller, from the carried Secret, reads every server's STATSZ from west.
      const controller = await connectAs(
        Buffer.from(
          (
            await second?.kube.get<Secret>({
              apiVersion: "v1",
              kind: "Secret",
              namespace: namespaces.west,
              name: "west-jetstream-controller-creds",
            })
          )?.data?.["user.creds"] ?? "",
          "base64",
        ).toString("utf8"),
        [podUrl("west", 1)],
      );
      try {
        const answers = await replies(controller, "$SYS.REQ.SERVER.PING.STATSZ", {
          want: 4,
          inboxPrefix: "_INBOX.jetstream-controller",
        });
        expect(answers).toHaveLength(4);
      } finally {
        await controller.close();
      }
    } finally {
      await onWest.close();
    }

    // The account's user on east hears what the same user publishes on west.
    const { creds } = await credsSecret("app-user-creds");
    const listener = await connectAs(creds, [podUrl("east", 0)]);
    const speaker = await connectAs(creds, [podUrl("west", 1)]);
    try {
      const received: string[] = [];
      const sub = listener.subscribe("greetings.>", { callback: (_err, msg) => void received.push(msg.string()) });
      await listener.flush();
      await waitFor(
        "a message from west on east",
        async () => {
          speaker.publish("greetings.east", "hello from west");
          await speaker.flush();
          await new Promise((r) => setTimeout(r, 250));
          return received.includes("hello from west");
        },
        { timeoutMs: 60_000, intervalMs: 0 },
      );
      sub.unsubscribe();
    } finally {
      await listener.close();
      await speaker.close();
    }
  }, 300_000);

  it("places a stream of that account on west, written from east; one meta group spans both clusters", async () => {
    const { creds } = await credsSecret("app-user-creds");
    const listener = await connectAs(creds, [podUrl("east", 0)]);
    try {
      // A stream placed on west, written and read from east.
      // The meta group may still be electing its leader over the gateways: asked again until it answers.
      const info = await waitFor(
        "a stream placed on west",
        async () =>
          (await jetstreamManager(listener, { timeout: 2_000 })).streams.add({
            name: "ORDERS",
            subjects: ["orders.>"],
            placement: { cluster: "west", tags: [] },
          }),
        { timeoutMs: 120_000, intervalMs: 1_000 },
      );
      expect(info.cluster?.name).toBe("west");
      const led = await waitFor(
        "the stream's leader",
        async () => {
          const current = await (await jetstreamManager(listener)).streams.info("ORDERS");
          return current.cluster?.leader ? current : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(["west-0", "west-1"]).toContain(led.cluster?.leader);
      await publishOnce(listener, "orders.1", "one", "orders-1");
      const stored = await (await jetstreamManager(listener)).streams.getMessage("ORDERS", { seq: 1 });
      expect(stored?.string()).toBe("one");
    } finally {
      await listener.close();
    }

    // One meta group spans both: the cluster that does not lead it asks the leader, by name over
    // $SYS, for its peers (C23, C37), and the leader answers listing the other cluster's servers.
    const sys = await connectAs(admin, [podUrl("east", 0)]);
    try {
      const all = ["east-0", "east-1", "west-0", "west-1"];
      const leader = await waitFor(
        "the meta leader answering by name",
        async () => (await Promise.all(all.map((name) => askMetaLeader(sys, name)))).find((r) => r !== undefined),
        { timeoutMs: 60_000 },
      );
      const peers = leader.jsz?.meta_cluster?.replicas?.map((p) => p.name).sort();
      expect(peers).toEqual(all.filter((name) => name !== leader.server));
    } finally {
      await sys.close();
    }
  }, 240_000);

  it("refuses a member list without this cluster, then creates no server until the gateway Secret holds ca.crt (C48)", async () => {
    const namespace = namespaces.east;
    const certificate = await ca.issue("waiting", [`waiting-gateway.${namespace}.svc`]);
    const { "ca.crt": _ca, ...withoutCa } = certificate;
    await env.kube.create(tlsSecret(namespace, "waiting-certs", withoutCa));
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "waiting", namespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        gateway: {
          discovery: "Explicit",
          remotes: [{ name: "east", url: `tls://${gatewayHost("east")}:7222` }],
          tls: { secretRef: { name: "waiting-certs" } },
        },
      },
    } as KubeObject);
    const key = { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace, name: "waiting" };
    const refused = await waitFor(
      "Progressing UnsupportedSpec",
      async () => {
        const c = await readCluster(env.kube, namespace, "waiting");
        return condition(c, "Progressing")?.reason === "UnsupportedSpec" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(refused, "Progressing")).toMatchObject({
      status: "False",
      message: expect.stringContaining("spec.gateway.remotes does not list this cluster (waiting)") as unknown,
    });
    // Listed, as on every other member: now only the certificate is missing.
    await env.kube.patch(
      key,
      {
        spec: {
          gateway: {
            remotes: [
              { name: "east", url: `tls://${gatewayHost("east")}:7222` },
              { name: "waiting", url: `tls://waiting-gateway.${namespace}.svc:7222` },
            ],
          },
        },
      },
      "merge",
    );
    const waiting = await waitFor(
      "Progressing GatewayCertificateNotReady",
      async () => {
        const c = await readCluster(env.kube, namespace, "waiting");
        return condition(c, "Progressing")?.reason === "GatewayCertificateNotReady" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(waiting, "Progressing")).toMatchObject({
      status: "True",
      message: expect.stringContaining("Secret waiting-certs does not hold tls.crt, tls.key and ca.crt") as unknown,
    });
    const statefulSet = { apiVersion: "apps/v1", kind: "StatefulSet", namespace, name: "waiting-0" };
    expect(await env.kube.get(statefulSet)).toBeUndefined();
    // The CA added to the Secret: render-cluster's poll sees it, as no event would tell it.
    await env.kube.patch(
      { apiVersion: "v1", kind: "Secret", namespace, name: "waiting-certs" },
      { stringData: { "ca.crt": certificate["ca.crt"] } },
      "merge",
    );
    await waitFor("waiting-0 created", () => env.kube.get(statefulSet), { timeoutMs: 60_000 });
    await env.kube.delete(key);
  }, 180_000);

  it("creates no server on a claim older than a NatsCluster that joins the meta group: OwnMetaGroup names it", async () => {
    const namespace = namespaces.east;
    const certificate = await ca.issue("rejoin", [`rejoin-gateway.${namespace}.svc`]);
    await env.kube.create(tlsSecret(namespace, "rejoin-certs", certificate));
    // The claim an earlier NatsCluster of this name left behind, with its JetStream state.
    const claim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data-rejoin-0-0", namespace },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    } as KubeObject;
    const made = await env.kube.create(claim);
    // Creation times count whole seconds: the NatsCluster must be made in a later one.
    const madeAt = Date.parse(made.metadata.creationTimestamp ?? "");
    await waitFor("a second after the claim", async () => Date.now() >= madeAt + 1_000, { timeoutMs: 5_000 });
    const key = { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace, name: "rejoin" };
    await env.kube.create({
      ...key,
      metadata: { name: "rejoin", namespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        jetstream: { storage: "Ephemeral" },
        gateway: {
          discovery: "Explicit",
          remotes: [
            { name: "east", url: `tls://${gatewayHost("east")}:7222` },
            { name: "rejoin", url: `tls://rejoin-gateway.${namespace}.svc:7222` },
          ],
          tls: { secretRef: { name: "rejoin-certs" } },
        },
      },
    } as KubeObject);
    let last: Cluster | undefined;
    const held = await waitFor(
      "Progressing OwnMetaGroup",
      async () => {
        last = await readCluster(env.kube, namespace, "rejoin");
        return condition(last, "Progressing")?.reason === "OwnMetaGroup" ? last : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}`);
    });
    expect(condition(held, "Progressing")).toMatchObject({
      status: "False",
      message: expect.stringContaining(`kubectl -n ${namespace} delete pvc data-rejoin-0-0`) as unknown,
    });
    const statefulSet = { apiVersion: "apps/v1", kind: "StatefulSet", namespace, name: "rejoin-0" };
    expect(await env.kube.get(statefulSet)).toBeUndefined();
    // The claim deleted as the message says: render-cluster's poll sees it gone and creates the server.
    await env.kube.delete({ apiVersion: "v1", kind: "PersistentVolumeClaim", namespace, name: "data-rejoin-0-0" });
    await waitFor("rejoin-0 created", () => env.kube.get(statefulSet), { timeoutMs: 60_000 });
    await env.kube.delete(key);
  }, 180_000);

  it("holds a running JetStream cluster given remotes at its last config while its servers run a meta group of their own: OwnMetaGroup", async () => {
    const namespace = namespaces.east;
    const key = { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace, name: "solo" };
    // Two servers, so JetStream runs clustered: they elect a meta group of their own.
    await env.kube.create({
      ...key,
      metadata: { name: "solo", namespace },
      spec: {
        version: "2.15.2",
        replicas: 2,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        jetstream: { storage: "Ephemeral" },
      },
    } as KubeObject);
    await waitAtRest(env.kube, namespace, 180_000, "solo");
    type ConfigMap = KubeObject & { data?: Record<string, string> };
    const configs = () =>
      Promise.all(
        ["solo-0", "solo-1"].map(async (server) => {
          const map = await env.kube.get<ConfigMap>({
            apiVersion: "v1",
            kind: "ConfigMap",
            namespace,
            name: `${server}-config`,
          });
          return map?.data?.["nats.conf"] ?? "";
        }),
      );
    const before = await configs();

    const certificate = await ca.issue("solo", [`solo-gateway.${namespace}.svc`]);
    await env.kube.create(tlsSecret(namespace, "solo-certs", certificate));
    await env.kube.patch(
      key,
      {
        spec: {
          gateway: {
            discovery: "Explicit",
            remotes: [
              { name: "east", url: `tls://${gatewayHost("east")}:7222` },
              { name: "west", url: `tls://${gatewayHost("west")}:7222` },
              { name: "solo", url: `tls://solo-gateway.${namespace}.svc:7222` },
            ],
            tls: { secretRef: { name: "solo-certs" } },
          },
        },
      },
      "merge",
    );
    let last: Cluster | undefined;
    const held = await waitFor(
      "Progressing OwnMetaGroup",
      async () => {
        last = await readCluster(env.kube, namespace, "solo");
        return last?.status?.observedGeneration === last?.metadata.generation &&
          condition(last, "Progressing")?.reason === "OwnMetaGroup"
          ? last
          : undefined;
      },
      { timeoutMs: 90_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw new Error(`${String(error)}; ${describeConditions(last)}`);
    });
    const message = condition(held, "Progressing")?.message ?? "";
    expect(condition(held, "Progressing")?.status).toBe("False");
    expect(message).toContain(
      "servers solo-0, solo-1 run a JetStream meta group of their own (2 peers, all in this cluster)",
    );
    expect(message).toContain("the servers must start empty");
    type Event = KubeObject & { reason?: string; type?: string; note?: string; regarding?: { name?: string } };
    const events = await waitFor(
      "the OwnMetaGroup event",
      async () => {
        const list = await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace });
        const found = list.filter((e) => e.regarding?.name === "solo" && e.reason === "OwnMetaGroup");
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(events.map((e) => [e.type, e.note])).toEqual([["Warning", message]]);
    // Nothing of the new render reached the servers: their configs are the ones they started on.
    const after = await configs();
    expect(after).toEqual(before);
    for (const config of after) expect(JSON.parse(config)).not.toHaveProperty("gateway");
    await env.kube.delete(key);
  }, 300_000);

  it("refuses a gateway without TLS, rendering nothing, until the operator allows it", async () => {
    const namespace = namespaces.east;
    const plain: KubeObject = {
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "plain", namespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        gateway: { discovery: "Gossip", remotes: [{ name: "seed", url: "nats://seed.example:7222" }] },
      },
    } as KubeObject;
    await env.kube.create(plain);
    const refused = await waitFor(
      "Progressing=False GatewayWithoutTLS",
      async () => {
        const c = await readCluster(env.kube, namespace, "plain");
        return condition(c, "Progressing")?.reason === "GatewayWithoutTLS" &&
          condition(c, "Ready")?.reason === "GatewayWithoutTLS"
          ? c
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(refused, "Progressing")?.status).toBe("False");
    expect(condition(refused, "Ready")?.status).toBe("False");
    expect(condition(refused, "Progressing")?.message).toContain(ALLOW_GATEWAY_WITHOUT_TLS_ENV);
    type Event = KubeObject & { reason?: string; type?: string; regarding?: { name?: string } };
    const events = await waitFor(
      "the GatewayWithoutTLS event",
      async () => {
        const list = await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace });
        const found = list.filter((e) => e.regarding?.name === "plain" && e.reason === "GatewayWithoutTLS");
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(events.map((e) => e.type)).toEqual(["Warning"]);
    const nothing = await env.kube.list<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      labelSelector: "cluster.nats-operator.io/cluster=plain",
    });
    expect(nothing).toEqual([]);
    expect(await env.kube.get({ apiVersion: "v1", kind: "Service", namespace, name: "plain" })).toBeUndefined();

    // Started with allow-gateway-without-tls, the operator renders the gateway in clear.
    process.env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] = "true";
    await env.kube.patch(
      { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace, name: "plain" },
      { spec: { serverTags: { allowed: "clear" } } },
      "merge",
    );
    const configMap = await waitFor(
      "plain-0's config",
      () =>
        env.kube.get<KubeObject & { data: Record<string, string> }>({
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace,
          name: "plain-0-config",
        }),
      { timeoutMs: 60_000 },
    );
    const config = JSON.parse(configMap.data["nats.conf"] ?? "{}") as { gateway?: Record<string, unknown> };
    expect(config.gateway).toEqual({
      name: "plain",
      listen: "0.0.0.0:7222",
      reject_unknown: false,
      gateways: [{ name: "seed", urls: ["nats://seed.example:7222"] }],
    });
    await waitFor(
      "the refusal cleared",
      async () => {
        const c = await readCluster(env.kube, namespace, "plain");
        return c?.metadata.annotations?.["cluster.nats-operator.io/render-failure"] === undefined &&
          condition(c, "Progressing")?.reason !== "GatewayWithoutTLS"
          ? c
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    await env.kube.delete({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      namespace,
      name: "plain",
    });
  }, 240_000);
});
