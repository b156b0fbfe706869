// Story 1 on real Knative Eventing: the operator's own manifests installed on a control plane
// running Knative's controllers, webhook, ApiServerSource adapters, PingSource adapter, Broker
// ingress/filter and in-memory channel (built from knative.dev/eventing), with every function
// running as its own pod. Nothing here calls a function: every event goes ApiServerSource →
// Broker → Trigger → function pod over HTTP, and PingSources are Knative's. Last, the resync
// guarantee: an input's event lost with its ApiServerSource's adapter scaled to zero.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import {
  rollOut,
  startKnativeCluster,
  story1Cluster,
  stream,
  waitClusterAtRest,
  waitSynced,
  type KnativeCluster,
} from "./support/knative-cluster.ts";
import {
  adapterScale,
  deliveriesOf,
  diagnose,
  scaleAdapter,
  setResyncSchedule,
  sweepsSince,
  sweepThatFoundIt,
  unfinishedSince,
} from "./support/lost-events.ts";
import { createCertificateAuthority, tlsSecret, type CertificateAuthority } from "../cluster/support/tls-secrets.ts";
import { waitFor } from "../../harness/wait.ts";

let k: KnativeCluster | undefined;
const cluster = (): KnativeCluster => {
  if (k === undefined) throw new Error("no control plane");
  return k;
};

// Story 1's objects exist before the operator is installed: Knative's ApiServerSource sends
// nothing for objects that predate it, so the resync (every minute here) is what finds them.
beforeAll(async () => {
  k = await startKnativeCluster({ serving: false });
  await k.apply(story1Cluster("demo") + "---" + stream("demo", "orders", "ORDERS"));
  await k.installOperator();
}, 600_000);

afterAll(async () => {
  await k?.stop();
}, 120_000);

describe("the operator on real Knative Eventing", () => {
  it("has its Broker, its five Triggers and its three ApiServerSources Ready", async () => {
    const kubectl = cluster().kubectl;
    await kubectl(
      "wait",
      "--for=condition=Ready",
      "brokers,triggers,apiserversources",
      "--all",
      "-n",
      "nats-operator",
      "--timeout=180s",
    );
    const names = await kubectl("get", "triggers", "-n", "nats-operator", "-o", "jsonpath={.items[*].metadata.name}");
    expect(names.split(" ").sort()).toEqual([
      "balance",
      "render-cluster",
      "sign-account",
      "step-rollout",
      "sync-stream",
    ]);
  }, 200_000);

  it("brings story 1's NatsCluster, applied before the operator, to Ready and Settled", async () => {
    await waitClusterAtRest(cluster(), "demo", 300_000);
  }, 320_000);

  it("syncs story 1's NatsStream through its NatsConnection; docs/kubectl.md's wait recipe and columns", async () => {
    const { kubectl } = cluster();
    // "Stream synced", as docs/kubectl.md writes it (plus the namespace).
    await kubectl("wait", "natsstream/orders", "--for=condition=Synced", "--timeout=180s", "-n", "demo");
    await waitSynced(cluster(), "demo", "orders", 10_000);
    expect((await cluster().conditions("natsstream", "demo", "orders"))["Ready"]).toBe("True/Synced");
    // Leader, current members (the leader included) and replicas wanted, once the Raft group is current.
    const row = await waitFor(
      "kubectl get natsstreams to show the leader and three current members",
      async () => {
        const out = await kubectl("get", "natsstreams", "-n", "demo");
        return out.split("\n").find((l) => /^orders\s+ORDERS\s+True\s+Synced\s+True\s+demo-[012]\s+3\s+3\s/.test(l));
      },
      { timeoutMs: 60_000, intervalMs: 2_000 },
    );
    expect(row).toBeDefined();
  }, 200_000);

  it("records an event a function refuses for good as a Warning EventDropped on its object", async () => {
    const { apply, kubectl } = cluster();
    // A subscriber that answers 400 (a path that hosts no function), which the Broker never retries.
    await apply(`
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: { name: refuses-audit, namespace: nats-operator }
spec:
  broker: nats-operator
  filters: [{ exact: { kind: NatsStream, name: audit } }]
  subscriber: { uri: "http://sync-stream.nats-operator.svc.cluster.local/no-such-function" }
  delivery:
    retry: 0
    deadLetterSink: { ref: { apiVersion: v1, kind: Service, name: nats-operator-dead-letter } }
`);
    await kubectl("wait", "--for=condition=Ready", "trigger/refuses-audit", "-n", "nats-operator", "--timeout=60s");
    await apply(stream("demo", "audit", "AUDIT"));
    const note = await waitFor(
      "EventDropped on NatsStream audit",
      async () => {
        const out = await kubectl(
          "get",
          "events.events.k8s.io",
          "-n",
          "demo",
          "-o",
          'jsonpath={range .items[?(@.reason=="EventDropped")]}{.regarding.kind}/{.regarding.name}: {.note}{"\\n"}{end}',
        );
        return out.split("\n").find((l) => l.startsWith("NatsStream/audit: "));
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(note).toMatch(/answered 400\); the next resync reconciles the object if its status does not describe it/);
  }, 120_000);

  it("rolls a spec change out one server at a time, each server replaced once; kubectl shows and waits for it", async () => {
    const { kubectl } = cluster();
    let midRollout = "";
    let finished: Promise<Record<string, string>> | undefined;
    const watch = await rollOut(cluster(), "demo", "300Mi", 420_000, async () => {
      // "Rollout finished", as docs/kubectl.md writes it (plus the namespace), started mid-rollout:
      // the conditions it returns on must be the finished rollout's.
      finished = kubectl(
        "wait",
        "natscluster/demo",
        "--for=condition=Progressing=False",
        "--timeout=420s",
        "-n",
        "demo",
      ).then(() => cluster().conditions("natscluster", "demo", "demo"));
      midRollout = await kubectl("get", "natsclusters", "-n", "demo");
    });
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    // Mid-rollout, the row reads the running version, ready servers of replicas, the rollout's
    // reason and its updated and pending counts.
    const [header = "", row = ""] = midRollout.split("\n");
    expect(header.split(/\s{2,}/)).toEqual([
      "NAME",
      "VERSION",
      "READY SERVERS",
      "REPLICAS",
      "READY",
      "REASON",
      "ROLLOUT",
      "UPDATED",
      "PENDING",
      "AGE",
    ]);
    expect(row).toMatch(/^demo\s+2\.15\.2\s+[23]\s+3\s+True\s+\w+\s+RollingRestart\s+[0-2]\s+[0-2]\s/);
    expect(await finished).toMatchObject({ Progressing: "False/UpToDate" });
    // The original pod and its one replacement: no server restarted twice for one revision.
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 450_000);
});

// Issue 24's guarantee on real Knative: an input's one event lost because the ApiServerSource
// that carries it had its adapter scaled to zero while the input changed (a node drained, an
// adapter restarted: Knative never replays), and the resync (every 15 s here) reconciling its
// referrer anyway. That the event was lost is read, not assumed: the function's own log lines
// name every delivery it handled. A client TLS Secret rotated (render-cluster) and a grant deleted
// (sign-account), each on a 2-server cluster of its own. Here rather than on Serving (the chart's
// install): there a tick every 15 s would wake every function and keep it from scaling to zero;
// the PingSources are the same (chart/templates/resync.yaml is kept equal to knative/resync.yaml).
describe("an input's event lost with its ApiServerSource's adapter at zero, recovered by the resync", () => {
  const RESYNC = "*/15 * * * * *";
  const TLS = "lost-tls";
  const AUTH = "lost-auth";
  const TEAM = "lost-team";
  const authorities: CertificateAuthority[] = [];
  const hosts = [`demo.${TLS}.svc`, `*.demo-headless.${TLS}.svc`];
  const serverUrls = (namespace: string, scheme: string) =>
    [0, 1].map((i) => `${scheme}://demo-${i}-0.demo-headless.${namespace}.svc:4222`);
  const secret = async (namespace: string, name: string, key: string) =>
    Buffer.from(
      await cluster().kubectl(
        "get",
        "secret",
        name,
        "-n",
        namespace,
        "-o",
        `jsonpath={.data.${key.replace(".", "\\.")}}`,
      ),
      "base64",
    ).toString("utf8");

  /** Whether a client trusting only `caPem` completes a TLS connection to every server. */
  const everyServerTrustedBy = async (caPem: string) => {
    for (const url of serverUrls(TLS, "tls")) {
      try {
        await (await connect({ servers: url, tls: { ca: caPem }, reconnect: false, timeout: 5_000 })).close();
      } catch {
        return false;
      }
    }
    return true;
  };
  const aliceCreds = async () => new TextEncoder().encode(await secret(TEAM, "alice-creds", "user.creds"));
  /** What each server answers these creds of alice's: "connected" or the error. */
  const aliceOnEachServer = async (creds: Uint8Array) =>
    Promise.all(
      serverUrls(AUTH, "nats").map((url) =>
        connect({ servers: url, authenticator: credsAuthenticator(creds), reconnect: false, timeout: 5_000 }).then(
          async (nc) => {
            await nc.close();
            return "connected";
          },
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        ),
      ),
    );
  const auth = (kind: string, namespace: string, name: string, spec: object) =>
    JSON.stringify({ apiVersion: "auth.nats-operator.io/v1beta1", kind, metadata: { name, namespace }, spec });
  const core = (kind: string, namespace: string, name: string, spec: object) =>
    JSON.stringify({ apiVersion: "nats-operator.io/v1beta1", kind, metadata: { name, namespace }, spec });
  const natsCluster = (namespace: string, spec: object) =>
    JSON.stringify({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { name: "demo", namespace },
      spec: {
        version: "2.15.2",
        replicas: 2,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
        ...spec,
      },
    });
  const namespaceOf = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  const issued = async (ca: CertificateAuthority) =>
    JSON.stringify(tlsSecret(TLS, "demo-client-tls", await ca.issue("demo", hosts)));
  let createdAt = 0;

  beforeAll(async () => {
    const { apply, kubectl } = cluster();
    await setResyncSchedule(cluster(), RESYNC);
    // sign-account pushes account JWTs through this platform's system connection.
    await kubectl(
      "set",
      "env",
      "deployment/sign-account",
      "-n",
      "nats-operator",
      `NATS_OPERATOR_SYSTEM_CONNECTION=${AUTH}/system`,
    );
    await kubectl("rollout", "status", "deployment/sign-account", "-n", "nats-operator", "--timeout=180s");
    createdAt = Date.now();
    const first = await createCertificateAuthority();
    authorities.push(first);
    await apply(
      [
        namespaceOf(TLS),
        await issued(first),
        natsCluster(TLS, { tls: { secretRef: { name: "demo-client-tls" } } }),
        namespaceOf(AUTH),
        namespaceOf(TEAM),
        auth("NatsOperator", AUTH, "main", { systemAccountRef: { name: "sys" } }),
        auth("NatsSystemAccount", AUTH, "sys", { operatorRef: { name: "main" } }),
        core("NatsOperatorTrust", AUTH, "main", { operatorRef: { name: "main" } }),
        auth("NatsUser", AUTH, "controller", {
          accountRef: { kind: "NatsSystemAccount", name: "sys" },
          preset: "cluster-controller",
        }),
        auth("NatsUser", AUTH, "pusher", {
          accountRef: { kind: "NatsSystemAccount", name: "sys" },
          preset: "auth-controller",
        }),
        core("NatsConnection", AUTH, "system", {
          servers: serverUrls(AUTH, "nats"),
          credentials: { secretKeyRef: { name: "pusher-creds" } },
        }),
        core("NatsReferenceGrant", AUTH, "teams", {
          from: [{ group: "auth.nats-operator.io", kind: "NatsAccount", namespace: TEAM }],
          to: [{ group: "auth.nats-operator.io", kind: "NatsOperator", name: "main" }],
        }),
        auth("NatsAccount", TEAM, "team-a", { operatorRef: { name: "main", namespace: AUTH } }),
        auth("NatsUser", TEAM, "alice", { accountRef: { kind: "NatsAccount", name: "team-a" } }),
      ].join("\n---\n"),
    );
    try {
      // The operator-mode cluster once its system user's creds exist, as test/integration/auth/wiring.test.ts does.
      await waitFor(
        "the controller's creds",
        async () => (await secret(AUTH, "controller-creds", "user.creds")).includes("NATS USER JWT"),
        { timeoutMs: 180_000, intervalMs: 2_000 },
      );
      await apply(
        natsCluster(AUTH, {
          auth: { trustRef: { name: "main" }, systemCredentials: { secretKeyRef: { name: "controller-creds" } } },
        }),
      );
      await Promise.all([waitClusterAtRest(cluster(), TLS, 300_000), waitClusterAtRest(cluster(), AUTH, 300_000)]);
      await waitFor(
        "alice connecting on both servers",
        async () => (await aliceOnEachServer(await aliceCreds())).every((a) => a === "connected"),
        { timeoutMs: 180_000, intervalMs: 2_000 },
      );
    } catch (error) {
      const kinds = "natsclusters,natsoperators,natssystemaccounts,natsaccounts,natsusers,natsoperatortrusts";
      const functions = ["render-cluster", "step-rollout", "sign-account"];
      throw new Error(`${String(error)}\n${await diagnose(cluster(), [TLS, AUTH, TEAM], kinds, functions)}`, {
        cause: error,
      });
    }
    expect(await everyServerTrustedBy(await secret(TLS, "demo-client-tls", "ca.crt"))).toBe(true);
  }, 600_000);

  afterAll(async () => {
    for (const ca of authorities) await ca.dispose();
  });

  it("a client TLS Secret rotated while the Secret adapter is at zero reaches every server through the first sweep after it", async () => {
    const k = cluster();
    const revision = () =>
      k.kubectl("get", "natscluster", "demo", "-n", TLS, "-o", "jsonpath={.status.config.revision}");
    const secretRef = { kind: "Secret", namespace: TLS, name: "demo-client-tls" };
    // The check below can see a Secret's delivery: the Secret's creation reached render-cluster.
    expect(await deliveriesOf(k, "render-cluster", secretRef, createdAt)).not.toEqual([]);
    const before = await revision();
    await scaleAdapter(k, "nats-operator-secrets", 0);
    const next = await createCertificateAuthority();
    authorities.push(next);
    const rotated = await issued(next);
    const rotatedAt = Date.now();
    await k.apply(rotated);
    const nextCa = await secret(TLS, "demo-client-tls", "ca.crt");
    await waitFor("the rotated certificate rendered", async () => (await revision()) !== before || undefined, {
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
    const renderedIn = Date.now() - rotatedAt;
    await waitFor(
      "every server presenting the rotated certificate",
      async () => (await everyServerTrustedBy(nextCa)) || undefined,
      { timeoutMs: 240_000, intervalMs: 2_000 },
    );
    const servedIn = Date.now() - rotatedAt;
    // The adapter stayed at zero throughout (nothing scaled it back), and no Secret event came.
    expect(await adapterScale(k, "nats-operator-secrets")).toEqual({ wanted: 0, pods: 0 });
    expect(await deliveriesOf(k, "render-cluster", secretRef, rotatedAt)).toEqual([]);
    // A sweep under way at the rotation may have listed before it; the next one must not miss it.
    expect(await sweepThatFoundIt(k, "render-cluster", rotatedAt)).toBeLessThanOrEqual(1);
    process.stdout.write(
      `Knative: client TLS rotated with the Secret adapter at zero: rendered after ${renderedIn} ms, ` +
        `on every server after ${servedIn} ms (resync every 15 s); render-cluster sweeps since: ` +
        `${(await sweepsSince(k, "render-cluster", rotatedAt)).join(" | ")}\n`,
    );
    await scaleAdapter(k, "nats-operator-secrets", 1);
  }, 420_000);

  it("a grant deleted while the adapters are at zero withdraws its account from every server through the first sweep after it", async () => {
    const k = cluster();
    const grantRef = { kind: "NatsReferenceGrant", namespace: AUTH, name: "teams" };
    expect(await deliveriesOf(k, "sign-account", grantRef, createdAt)).not.toEqual([]);
    // The creds alice's client holds: the servers must refuse them once the account is withdrawn.
    const creds = await aliceCreds();
    // The grant's events travel on the resources source; the Secret source is stopped too, so that
    // nothing a Secret does can lead sign-account to the account.
    await scaleAdapter(k, "nats-operator-resources", 0);
    await scaleAdapter(k, "nats-operator-secrets", 0);
    const deletedAt = Date.now();
    await k.kubectl("delete", "natsreferencegrant", "teams", "-n", AUTH, "--wait=true");
    // Back up after the delete: an adapter that starts lists what exists and sends nothing for it.
    await scaleAdapter(k, "nats-operator-resources", 1);
    await waitFor(
      "team-a withdrawn",
      async () => {
        const c = await k.conditions("natsaccount", TEAM, "team-a");
        return c["Ready"] === "False/ReferenceNotPermitted" && c["Distributed"] === "False/Withdrawn";
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const withdrawnIn = Date.now() - deletedAt;
    await waitFor(
      "alice refused by every server",
      async () => (await aliceOnEachServer(creds)).every((a) => /authorization/i.test(a)) || undefined,
      { timeoutMs: 120_000, intervalMs: 2_000 },
    );
    const refusedIn = Date.now() - deletedAt;
    expect(await deliveriesOf(k, "sign-account", grantRef, deletedAt)).toEqual([]);
    expect(await sweepThatFoundIt(k, "sign-account", deletedAt)).toBeLessThanOrEqual(1);
    process.stdout.write(
      `Knative: grant deleted with the adapters at zero: withdrawn after ${withdrawnIn} ms, alice refused by ` +
        `every server after ${refusedIn} ms (resync every 15 s); sign-account sweeps since: ` +
        `${(await sweepsSince(k, "sign-account", deletedAt)).join(" | ")}; not done since: ` +
        `${(await unfinishedSince(k, "sign-account", deletedAt)).join(" | ")}\n`,
    );
    await scaleAdapter(k, "nats-operator-secrets", 1);
  }, 420_000);
});
