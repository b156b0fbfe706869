// harness: real node
// TLS from the real cert-manager (C9, C11, C12): the harness's cert-manager controller (built from
// its Go module, test/harness/cert-manager.ts) issues a private CA from a SelfSigned Issuer, and a
// CA Issuer signs what the NatsCluster asks for. The NatsCluster is applied before cert-manager is
// installed, so it first waits, saying that the Certificate kind is unknown. One NatsCluster, in operator mode with system
// credentials (so a new certificate is reloaded over $SYS), takes its client and route TLS from
// certManager: render-cluster creates the Certificates, the servers wait for their Secrets, a
// client trusting the CA connects over tls://, and a forced renewal of either (as `cmctl renew`
// triggers one) reaches every server by reload, with the same pods and the same nats-server processes. Once the
// client listener drops certManager, its Certificate is deleted. A second NatsCluster whose client
// TLS names an Issuer that does not exist is held, saying so, until the Issuer is created (#13).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createInbox, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { RENDER_FAILURE_ANNOTATION } from "../../../shared/api/constants/annotations.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import type { Condition } from "../../../shared/kube/conditions.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { ensureCertManager } from "../../harness/binaries.ts";
import { startCertManager, type RunningCertManager } from "../../harness/cert-manager.ts";
import { trackProcess } from "../../harness/state.ts";
import { createOperator, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, condition, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { waitFor } from "../../harness/wait.ts";

const NAME = "cm";
const SERVERS = [`${NAME}-0`, `${NAME}-1`];
const CERT_MANAGER = "cert-manager.io/v1";

let env: Environment;
let operator: RunningOperator;
let certManager: RunningCertManager;
let logDir: string;
let namespace: string;
let nats: TestOperator;

type Secret = KubeObject & { data?: Record<string, string> };
type Certificate = KubeObject & { status?: { conditions?: Condition[] } };

interface ServerVarz {
  server_name: string;
  start: string;
  config_load_time: string;
  routes: number;
}

const secret = (name: string) => env.kube.get<Secret>({ apiVersion: "v1", kind: "Secret", namespace, name });
const certificate = (name: string) =>
  env.kube.get<Certificate>({ apiVersion: CERT_MANAGER, kind: "Certificate", namespace, name });
const decoded = (s: Secret | undefined, key: string) => Buffer.from(s?.data?.[key] ?? "", "base64").toString("utf8");
const podUrl = (ordinal: number) => `tls://${NAME}-${ordinal}-0.${NAME}-headless.${namespace}.svc:4222`;

/** The system user over TLS, trusting only `caPem`. */
const connectTrusting = (caPem: string, servers: string[]): Promise<NatsConnection> =>
  connect({
    servers,
    tls: { ca: caPem },
    authenticator: credsAuthenticator(new TextEncoder().encode(nats.systemUserCreds)),
    reconnect: false,
    timeout: 5_000,
  });

/** What every server says over $SYS VARZ, by server name. */
/** One VARZ gather over $SYS: the servers answering within 2 s. */
async function gatherVarz(caPem: string): Promise<Map<string, ServerVarz>> {
  const nc = await connectTrusting(caPem, [podUrl(0)]);
  try {
    const inbox = createInbox();
    const answers = new Map<string, ServerVarz>();
    const sub = nc.subscribe(inbox);
    const done = (async () => {
      for await (const m of sub) {
        const varz = m.json<{ data: ServerVarz }>().data;
        answers.set(varz.server_name, varz);
      }
    })();
    nc.publish("$SYS.REQ.SERVER.PING.VARZ", JSON.stringify({ cluster: NAME }), { reply: inbox });
    await new Promise((r) => setTimeout(r, 2_000));
    sub.unsubscribe();
    await done;
    return answers;
  } finally {
    await nc.close();
  }
}

/** VARZ of every server: a server slow to answer on a busy machine is asked again. */
const varzByServer = (caPem: string): Promise<Map<string, ServerVarz>> =>
  waitFor(
    "every server answering VARZ",
    async () => {
      const answers = await gatherVarz(caPem);
      return SERVERS.every((s) => answers.has(s)) ? answers : undefined;
    },
    { timeoutMs: 30_000 },
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

const isReady = (c: Certificate | undefined) =>
  c?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;

/** A private CA, as a user bootstraps one: a SelfSigned Issuer, a CA Certificate, a CA Issuer on it. */
async function installCaIssuer(): Promise<void> {
  const create = (object: Record<string, unknown>) => env.kube.create(object as unknown as KubeObject);
  await create({
    apiVersion: CERT_MANAGER,
    kind: "Issuer",
    metadata: { name: "selfsigned", namespace },
    spec: { selfSigned: {} },
  });
  await create({
    apiVersion: CERT_MANAGER,
    kind: "Certificate",
    metadata: { name: "nats-ca", namespace },
    spec: {
      isCA: true,
      commonName: "nats test CA",
      secretName: "nats-ca",
      privateKey: { algorithm: "ECDSA", size: 256 },
      issuerRef: { name: "selfsigned", kind: "Issuer", group: "cert-manager.io" },
    },
  });
  await create({
    apiVersion: CERT_MANAGER,
    kind: "Issuer",
    metadata: { name: "nats-ca", namespace },
    spec: { ca: { secretName: "nats-ca" } },
  });
  await waitFor("the CA Certificate issued", async () => isReady(await certificate("nats-ca")), { timeoutMs: 120_000 });
}

/** What the NatsCluster read before cert-manager was installed: its Progressing, and its StatefulSets. */
let beforeCertManager: { progressing?: Condition; statefulSets: number } | undefined;

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("cert-manager");
  nats = await createOperator();
  await installOperatorTrust(env.kube, namespace, nats);
  // Secrets' events reach the functions, as the nats-operator-secrets ApiServerSource sends them.
  operator = await startOperator(env.transport, { extraKinds: ["Secret"] });
  const issuerRef = { name: "nats-ca" };
  // Applied before cert-manager is installed (the control plane `npm run test:integration` starts
  // has none): the Certificate kind is unknown, and the servers wait.
  await env.kube.create({
    apiVersion: "cluster.nats-operator.io/v1beta1",
    kind: "NatsCluster",
    metadata: { name: NAME, namespace },
    spec: {
      version: "2.15.2",
      replicas: SERVERS.length,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
      auth: operatorModeAuth(),
      tls: { certManager: { issuerRef } },
      routes: { tls: { certManager: { issuerRef } } },
    },
  } as KubeObject);
  const progressing = await waitFor(
    "Progressing to say the Certificate kind is unknown",
    async () => {
      const found = condition(await readCluster(env.kube, namespace, NAME), "Progressing");
      return found?.message.includes("not a known kind") ? found : undefined;
    },
    { timeoutMs: 60_000 },
  ).catch(() => undefined);
  const statefulSets = await env.kube.list<KubeObject>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace });
  beforeCertManager = { ...(progressing ? { progressing } : {}), statefulSets: statefulSets.length };

  logDir = await mkdtemp(join(tmpdir(), "cert-manager-test-"));
  certManager = await startCertManager({
    dir: await ensureCertManager(() => undefined),
    kubeconfig: process.env.KUBECONFIG ?? "",
    logFile: join(logDir, "cert-manager.log"),
    cwd: logDir,
  });
  // Stopped in afterAll; recorded with the harness too, so a killed run does not leave it behind.
  const stateFile = process.env["NATS_OPERATOR_HARNESS_STATE"];
  if (stateFile)
    await trackProcess(stateFile, { name: "cert-manager", pid: certManager.pid, expect: certManager.expect });
  await installCaIssuer();
  await waitAtRest(env.kube, namespace, 300_000, NAME);
}, 600_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
  await certManager?.stop();
  if (logDir) await rm(logDir, { recursive: true, force: true });
}, 120_000);

describe("TLS from cert-manager", () => {
  it("without cert-manager, creates no server and says in Progressing that the Certificate kind is unknown", () => {
    expect(beforeCertManager?.progressing).toMatchObject({
      status: "False",
      reason: "ClientCertificateNotReady",
      message: expect.stringContaining("cert-manager Certificate is not a known kind"),
    });
    expect(beforeCertManager?.statefulSets).toBe(0);
  });

  it("has cert-manager issue the client and route Certificates render-cluster created, owned by the NatsCluster", async () => {
    for (const [name, secretName] of [
      [`${NAME}-client`, `${NAME}-client-tls`],
      [`${NAME}-routes`, `${NAME}-routes-tls`],
    ] as const) {
      const issued = await certificate(name);
      expect(isReady(issued)).toBe(true);
      expect(issued?.metadata.ownerReferences?.[0]).toMatchObject({ kind: "NatsCluster", name: NAME });
      const stored = await secret(secretName);
      expect(decoded(stored, "ca.crt")).toBe(decoded(await secret("nats-ca"), "tls.crt"));
    }
  });

  it("serves clients over tls:// with the issued certificate, and routes the servers over TLS", async () => {
    const cluster = await readCluster(env.kube, namespace, NAME);
    expect(cluster?.status?.endpoints?.client).toMatch(/^tls:\/\//);
    const ca = decoded(await secret("nats-ca"), "tls.crt");
    for (const ordinal of SERVERS.keys()) {
      const nc = await connectTrusting(ca, [podUrl(ordinal)]);
      await nc.flush();
      await nc.close();
    }
    // Every server routes to the other (a pool of connections): the route certificate, from the same
    // CA, is verified both ways.
    const varz = await varzByServer(ca);
    expect([...varz.keys()].sort()).toEqual(SERVERS);
    for (const server of SERVERS) expect(varz.get(server)?.routes).toBeGreaterThan(0);
  });

  it.each(["client", "routes"])(
    "reloads a renewed %s certificate into every server: same pods, same processes, no NatsCluster edit",
    async (listener) => {
      const name = `${NAME}-${listener}`;
      const before = (await readCluster(env.kube, namespace, NAME)) as Cluster;
      const ca = decoded(await secret("nats-ca"), "tls.crt");
      const issued = decoded(await secret(`${name}-tls`), "tls.crt");
      const uids = await podUids();
      const varzBefore = await varzByServer(ca);

      // What `cmctl renew` does: mark the Certificate Issuing, ManuallyTriggered.
      const current = (await certificate(name)) as Certificate;
      const issuing = {
        type: "Issuing",
        status: "True",
        reason: "ManuallyTriggered",
        message: "Certificate re-issuance manually triggered",
        lastTransitionTime: new Date().toISOString(),
      } as Condition;
      await env.kube.replaceStatus({
        ...current,
        status: { ...current.status, conditions: [...(current.status?.conditions ?? []), issuing] },
      } as Certificate);
      await waitFor(
        "the renewed certificate in the Secret",
        async () => decoded(await secret(`${name}-tls`), "tls.crt") !== issued,
        { timeoutMs: 120_000 },
      );

      const after = await waitFor(
        "the renewed certificate applied",
        async () => {
          const cluster = await readCluster(env.kube, namespace, NAME);
          const revision = cluster?.status?.config?.revision;
          return cluster &&
            revision !== before.status?.config?.revision &&
            condition(cluster, "Progressing")?.reason === "UpToDate" &&
            cluster.status?.servers?.every((s) => s.configRevision === revision)
            ? cluster
            : undefined;
        },
        { timeoutMs: 180_000 },
      );
      expect(after.metadata.generation).toBe(before.metadata.generation);
      expect(after.status?.config?.appliedBy).toBe("Reload");
      expect(await podUids()).toEqual(uids);
      const varzAfter = await varzByServer(ca);
      for (const server of SERVERS) {
        expect(varzAfter.get(server)?.start).toBe(varzBefore.get(server)?.start);
        expect(Date.parse(varzAfter.get(server)?.config_load_time ?? "")).toBeGreaterThan(
          Date.parse(varzBefore.get(server)?.config_load_time ?? ""),
        );
        // Still routed to each other under the renewed route certificate.
        expect(varzAfter.get(server)?.routes).toBeGreaterThan(0);
      }
    },
    360_000,
  );

  it("deletes the client Certificate once spec.tls no longer names certManager, and serves clients in clear", async () => {
    await env.kube.patch(clusterKey(namespace, NAME), { spec: { tls: null } }, "merge");
    await waitFor("the client Certificate deleted", async () => (await certificate(`${NAME}-client`)) === undefined, {
      timeoutMs: 60_000,
    });
    const cluster = await waitAtRest(env.kube, namespace, 240_000, NAME);
    expect(cluster.status?.endpoints?.client).toMatch(/^nats:\/\//);
    // The route Certificate is still named, so it stays.
    expect(isReady(await certificate(`${NAME}-routes`))).toBe(true);
  }, 300_000);
});

describe("a cert-manager issuer that does not exist (#13)", () => {
  const HELD = "cm-late";
  type Event = KubeObject & { reason?: string; type?: string; note?: string; regarding?: { name?: string } };

  it("holds the NatsCluster, naming spec.tls.certManager.issuerRef and the fix, until the Issuer is created", async () => {
    await env.kube.create({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: HELD, namespace },
      spec: {
        version: "2.15.2",
        replicas: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        tls: { certManager: { issuerRef: { name: "late-ca" } } },
      },
    } as KubeObject);
    const expected = `spec.tls.certManager.issuerRef names Issuer late-ca, which does not exist in namespace ${namespace}: create it, or name another issuer`;
    const progressing = await waitFor(
      "Progressing to name the missing Issuer",
      async () => {
        const found = condition(await readCluster(env.kube, namespace, HELD), "Progressing");
        return found?.message.includes("late-ca") ? found : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(progressing).toMatchObject({
      status: "False",
      reason: "ClientCertificateNotReady",
      message: expect.stringContaining(expected),
    });
    const events = await waitFor(
      "the Warning event",
      async () => {
        const list = await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace });
        const found = list.filter((e) => e.regarding?.name === HELD && e.reason === "ClientCertificateNotReady");
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(events.map((e) => [e.type, e.note])).toEqual([["Warning", expect.stringContaining(expected)]]);
    const statefulSets = await env.kube.list<KubeObject>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      labelSelector: `cluster.nats-operator.io/cluster=${HELD}`,
    });
    expect(statefulSets).toEqual([]);
    // The Certificate is applied all the same, so cert-manager issues it once the Issuer exists.
    expect(await certificate(`${HELD}-client`)).toBeDefined();

    await env.kube.create({
      apiVersion: CERT_MANAGER,
      kind: "Issuer",
      metadata: { name: "late-ca", namespace },
      spec: { ca: { secretName: "nats-ca" } },
    } as unknown as KubeObject);
    const ready = await waitAtRest(env.kube, namespace, 240_000, HELD);
    expect(ready.metadata.annotations?.[RENDER_FAILURE_ANNOTATION]).toBeUndefined();
    expect(ready.status?.endpoints?.client).toMatch(/^tls:\/\//);
  }, 360_000);
});
