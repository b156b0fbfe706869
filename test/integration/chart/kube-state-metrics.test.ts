// The chart's kube-state-metrics CustomResourceState configuration (chart/files/kube-state-metrics.yaml,
// docs/reference/kube-state-metrics.md) on real kube-state-metrics, built from its Go module
// (test/infra/build-kube-state-metrics.sh). No operator and no node: an object of every kind with
// a status written through the status subresource, kube-state-metrics run on the host with the
// chart's own ConfigMap and ClusterRole (a ServiceAccount token bound to it, not the admin's
// certificate, so the role is proven enough), then /metrics scraped and every series asserted. One
// account is signed by the real sign-account function instead, so the expiry it records is the JWT's.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CoreV1Api, RbacAuthorizationV1Api, type V1ClusterRole, type V1ClusterRoleBinding } from "@kubernetes/client-node";
import { decode as decodeJwt } from "@nats-io/jwt";
import { parseAllDocuments, stringify } from "yaml";
import { signAccount } from "../../../functions/sign-account/index.ts";
import { confinedKube } from "../../../shared/kube/confined.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { KINDS, type KindName } from "../../../shared/api/kinds.ts";
import { MINIMAL_SPECS } from "../../fixtures/manifests/minimal-specs.ts";
import { ensureHelm, ensureKubeStateMetrics } from "../../harness/binaries.ts";
import { repoRoot } from "../../harness/paths.ts";
import { freePorts } from "../../harness/ports.ts";
import { spawnDetached, stopPid } from "../../harness/processes.ts";
import { waitFor } from "../../harness/wait.ts";
import {
  accepted,
  closeSession,
  create,
  objectOf,
  openSession,
  read,
  replaceStatus,
  type ApiSession,
} from "../api/support/api.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator } from "../support/operator.ts";

const execFileAsync = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "nats-operator-ksm-"));
const SINCE = "2026-12-01T10:00:00Z";
const EXPIRES = "2026-12-09T08:30:00Z";
const epoch = (time: string): number => Date.parse(time) / 1000;

const condition = (type: string, status: "True" | "False" | "Unknown", reason: string) => ({
  type,
  status,
  reason,
  message: "",
  lastTransitionTime: SINCE,
});

/** The status each kind is given: Ready for all, and the fields the configuration reads. */
const STATUSES: Partial<Record<KindName, Record<string, unknown>>> = {
  NatsCluster: {
    conditions: [condition("Ready", "True", "ServersReady"), condition("Progressing", "True", "GateBlocked")],
    version: "2.15.2",
    readyReplicas: 3,
    replicas: 3,
    rollout: {
      targetRevision: "abc",
      current: "c-1",
      updated: ["c-0"],
      updatedCount: 1,
      pending: ["c-1", "c-2"],
      pendingCount: 2,
      gate: { waitingFor: "Settled", since: SINCE },
    },
    routeCertificate: { notAfter: EXPIRES, renewAt: SINCE },
  },
  NatsAccount: {
    conditions: [condition("Ready", "True", "Distributed")],
    jwtExpires: EXPIRES,
    distribution: { servers: 3, current: 2 },
  },
  NatsSystemAccount: { conditions: [condition("Ready", "True", "Distributed")], distribution: { servers: 3, current: 3 } },
  NatsStream: {
    conditions: [condition("Ready", "True", "Synced"), condition("Synced", "True", "InSync")],
    lastSyncedTime: SINCE,
    server: { currentReplicas: 3, leader: "c-0" },
  },
  NatsConsumer: {
    conditions: [condition("Ready", "False", "NotFound"), condition("Synced", "False", "NotFound")],
    lastSyncedTime: SINCE,
  },
  NatsBalancer: { conditions: [condition("Ready", "True", "Balanced")], pools: [{ name: "(default)", leaderSkew: 2 }] },
  NatsSystemBalancer: { conditions: [condition("Ready", "True", "Balanced")], skew: { leaders: 3, replicas: 1 } },
  NatsClusterEvacuation: {
    conditions: [condition("Ready", "False", "Evacuating"), condition("Progressing", "True", "Moving")],
    remaining: 4,
    moved: 1,
    inFlight: 1,
  },
};
const statusOf = (kind: KindName): Record<string, unknown> =>
  STATUSES[kind] ?? { conditions: [condition("Ready", "True", "Ready")] };
/** The kinds with a status: every kind but NatsReferenceGrant. */
const KINDS_WITH_STATUS = (Object.keys(KINDS) as KindName[]).filter((k) => KINDS[k].hasStatus);
const nameOf = (kind: KindName): string => kind.toLowerCase();
/** The smallest spec each kind admits; a cluster of three moving to 2.15.3. */
const specOf = (kind: KindName): Record<string, unknown> =>
  kind === "NatsCluster" ? { ...MINIMAL_SPECS[kind], version: "2.15.3", replicas: 3 } : MINIMAL_SPECS[kind];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, one sample per line (kube-state-metrics writes no timestamps). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match?.[1] || match[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const l of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      if (l[1] !== undefined) labels[l[1]] = (l[2] ?? "").replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

let session: ApiSession | undefined;
/** Where sign-account signs a NatsOperator, its system account and an account. */
let env: Environment | undefined;
let signedNamespace = "";
let pid: number | undefined;
let metricsUrl = "";
const rbac: { role?: V1ClusterRole; binding?: V1ClusterRoleBinding } = {};

const open = (): ApiSession => {
  if (!session) throw new Error("no session");
  return session;
};

/** The objects the chart renders with metrics.kubeStateMetrics on, for kube-state-metrics' ServiceAccount in `namespace`. */
async function renderChart(namespace: string) {
  const helm = await ensureHelm();
  const helmHome = join(work, "helm");
  const { stdout } = await execFileAsync(
    helm,
    [
      "template",
      "nats-operator",
      join(repoRoot, "chart"),
      "--namespace",
      "nats-operator",
      "--show-only",
      "templates/kube-state-metrics.yaml",
      "--set",
      "metrics.kubeStateMetrics.enabled=true",
      "--set",
      `metrics.kubeStateMetrics.namespace=${namespace}`,
      "--set",
      "metrics.kubeStateMetrics.serviceAccount=kube-state-metrics",
    ],
    { env: { PATH: process.env["PATH"] ?? "", HOME: helmHome, KUBECONFIG: join(helmHome, "none") } },
  );
  const docs = parseAllDocuments(stdout).map((d) => d.toJS() as { kind: string } & Record<string, unknown>);
  const find = <T>(kind: string): T => {
    const found = docs.find((d) => d.kind === kind);
    if (!found) throw new Error(`the chart rendered no ${kind}`);
    return found as T;
  };
  return {
    configMap: find<{ metadata: { namespace: string }; data: Record<string, string> }>("ConfigMap"),
    role: find<V1ClusterRole>("ClusterRole"),
    binding: find<V1ClusterRoleBinding>("ClusterRoleBinding"),
  };
}

/** A kubeconfig for the ServiceAccount `namespace`/`name`: the API server the harness runs, a bound token. */
async function serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
  const kc = open().kc;
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = kc.getCurrentCluster();
  if (!cluster || !request.status?.token) throw new Error("no cluster or no token");
  const path = join(work, "kubeconfig");
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "harness", cluster: { server: cluster.server, "certificate-authority-data": cluster.caData } }],
      users: [{ name, user: { token: request.status.token } }],
      contexts: [{ name: "harness", context: { cluster: "harness", user: name } }],
      "current-context": "harness",
    }),
    { mode: 0o600 },
  );
  return path;
}

async function scrape(): Promise<Sample[]> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`GET ${metricsUrl}: ${response.status}`);
  return parseMetrics(await response.text());
}

/** The samples of `metric` for this file's object of `kind`. */
const of = (samples: Sample[], metric: string, kind: KindName): Sample[] =>
  samples.filter(
    (s) =>
      s.name === `nats_operator_status_${metric}` &&
      s.labels["customresource_kind"] === kind &&
      s.labels["namespace"] === open().namespace &&
      s.labels["name"] === nameOf(kind),
  );

/** The one value of `metric` for `kind`'s object; undefined while there is none. */
const valueOf = (samples: Sample[], metric: string, kind: KindName, labels: Record<string, string> = {}) =>
  of(samples, metric, kind).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

beforeAll(async () => {
  const binary = await ensureKubeStateMetrics();
  session = await openSession("ksm");
  env = await startEnvironment();
  signedNamespace = await env.namespace("ksm-signed");
  const namespace = session.namespace;
  const rendered = await renderChart(namespace);
  expect(rendered.configMap.metadata.namespace).toBe(namespace);
  const rbacApi = session.kc.makeApiClient(RbacAuthorizationV1Api);
  rbac.role = await rbacApi.createClusterRole({ body: rendered.role });
  rbac.binding = await rbacApi.createClusterRoleBinding({ body: rendered.binding });
  const kubeconfig = await serviceAccountKubeconfig(namespace, "kube-state-metrics");
  for (const kind of KINDS_WITH_STATUS) {
    const stored = accepted(await create(session, objectOf(session, kind, nameOf(kind), specOf(kind))));
    accepted(await replaceStatus(session, { ...stored, status: statusOf(kind) }));
  }
  const config = join(work, "config.yaml");
  writeFileSync(config, rendered.configMap.data["config.yaml"] ?? "");
  const [port, telemetryPort] = await freePorts(2);
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  pid = spawnDetached(
    binary,
    [
      `--kubeconfig=${kubeconfig}`,
      `--custom-resource-state-config-file=${config}`,
      "--custom-resource-state-only",
      `--namespaces=${namespace},${signedNamespace}`,
      "--host=127.0.0.1",
      `--port=${port}`,
      "--telemetry-host=127.0.0.1",
      `--telemetry-port=${telemetryPort}`,
    ],
    { logFile: join(work, "kube-state-metrics.log") },
  );
  // Every kind's Ready condition is there once each kind's store has listed.
  await waitFor(
    "a Ready series of every kind",
    async () => {
      const samples = await scrape();
      return KINDS_WITH_STATUS.every((k) => valueOf(samples, "condition", k, { type: "Ready" }) !== undefined);
    },
    { timeoutMs: 60_000 },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\nkube-state-metrics log:\n${readFileSync(join(work, "kube-state-metrics.log"), "utf8")}`);
  });
}, 30 * 60_000);

afterAll(async () => {
  if (pid !== undefined) await stopPid(pid, { expect: "kube-state-metrics" });
  const rbacApi = session?.kc.makeApiClient(RbacAuthorizationV1Api);
  if (rbac.binding?.metadata?.name) await rbacApi?.deleteClusterRoleBinding({ name: rbac.binding.metadata.name });
  if (rbac.role?.metadata?.name) await rbacApi?.deleteClusterRole({ name: rbac.role.metadata.name });
  await closeSession(session);
  await env?.stop();
});

describe("kube-state-metrics on the chart's CustomResourceState configuration", () => {
  it("reports every condition of every kind: 1 while True, with its type, status and reason", async () => {
    const samples = await scrape();
    for (const kind of KINDS_WITH_STATUS) {
      const conditions = statusOf(kind)["conditions"] as ReturnType<typeof condition>[];
      const reported = of(samples, "condition", kind).map((s) => ({
        type: s.labels["type"],
        status: s.labels["status"],
        reason: s.labels["reason"],
        value: s.value,
      }));
      expect([kind, reported]).toEqual([
        kind,
        expect.arrayContaining(
          conditions.map((c) => ({ type: c.type, status: c.status, reason: c.reason, value: c.status === "True" ? 1 : 0 })),
        ),
      ]);
      expect([kind, reported.length]).toEqual([kind, conditions.length]);
    }
  });

  it("reports a NatsCluster's running version, ready servers and rollout: updated, pending, the gate and since when", async () => {
    const samples = await scrape();
    expect(of(samples, "cluster_version_info", "NatsCluster").map((s) => [s.labels, s.value])).toEqual([
      [expect.objectContaining({ version: "2.15.2", wanted_version: "2.15.3" }), 1],
    ]);
    expect({
      ready: valueOf(samples, "cluster_ready_servers", "NatsCluster"),
      replicas: valueOf(samples, "cluster_replicas", "NatsCluster"),
      updated: valueOf(samples, "cluster_rollout_updated_servers", "NatsCluster"),
      pending: valueOf(samples, "cluster_rollout_pending_servers", "NatsCluster"),
      gate: valueOf(samples, "cluster_rollout_gate_since_timestamp_seconds", "NatsCluster", { waiting_for: "Settled" }),
      routeCertificate: valueOf(samples, "cluster_route_certificate_expiry_timestamp_seconds", "NatsCluster"),
    }).toEqual({ ready: 3, replicas: 3, updated: 1, pending: 2, gate: epoch(SINCE), routeCertificate: epoch(EXPIRES) });
  });

  it("reports an account's JWT expiry as an absolute time and its distribution", async () => {
    const samples = await scrape();
    expect({
      expiry: valueOf(samples, "account_jwt_expiry_timestamp_seconds", "NatsAccount"),
      current: valueOf(samples, "account_distribution_current_servers", "NatsAccount"),
      servers: valueOf(samples, "account_distribution_servers", "NatsAccount"),
      system: valueOf(samples, "account_distribution_current_servers", "NatsSystemAccount"),
    }).toEqual({ expiry: epoch(EXPIRES), current: 2, servers: 3, system: 3 });
  });

  it("reports a JetStream object's last sync and current replicas, an evacuation's progress and a balancer's skew", async () => {
    const samples = await scrape();
    expect({
      synced: valueOf(samples, "jetstream_last_synced_timestamp_seconds", "NatsStream"),
      consumerSynced: valueOf(samples, "jetstream_last_synced_timestamp_seconds", "NatsConsumer"),
      currentReplicas: valueOf(samples, "jetstream_current_replicas", "NatsStream"),
      remaining: valueOf(samples, "evacuation_remaining_streams", "NatsClusterEvacuation"),
      moved: valueOf(samples, "evacuation_moved_streams", "NatsClusterEvacuation"),
      inFlight: valueOf(samples, "evacuation_in_flight_moves", "NatsClusterEvacuation"),
      poolSkew: valueOf(samples, "balancer_leader_skew", "NatsBalancer", { pool: "(default)" }),
      leaderSkew: valueOf(samples, "balancer_leader_skew", "NatsSystemBalancer"),
      replicaSkew: valueOf(samples, "balancer_replica_skew", "NatsSystemBalancer"),
    }).toEqual({
      synced: epoch(SINCE),
      consumerSynced: epoch(SINCE),
      currentReplicas: 3,
      remaining: 4,
      moved: 1,
      inFlight: 1,
      poolSkew: 2,
      leaderSkew: 3,
      replicaSkew: 1,
    });
    // A consumer whose status has no server block yet gives no replicas series rather than a 0.
    expect(of(samples, "jetstream_current_replicas", "NatsConsumer")).toEqual([]);
  });

  it("follows a status change: a finished rollout has no gate series, nothing pending and the new version", async () => {
    const s = open();
    const current = accepted(await read(s, objectOf(s, "NatsCluster", nameOf("NatsCluster"), {})));
    const { rollout: _rollout, ...rest } = statusOf("NatsCluster");
    accepted(
      await replaceStatus(s, {
        ...current,
        status: {
          ...rest,
          version: "2.15.3",
          conditions: [condition("Ready", "True", "ServersReady"), condition("Progressing", "False", "RolloutComplete")],
        },
      }),
    );
    const samples = await waitFor("the finished rollout's series", async () => {
      const got = await scrape();
      return of(got, "cluster_rollout_gate_since_timestamp_seconds", "NatsCluster").length === 0 ? got : undefined;
    });
    expect({
      version: of(samples, "cluster_version_info", "NatsCluster").map((x) => x.labels["version"]),
      pending: valueOf(samples, "cluster_rollout_pending_servers", "NatsCluster"),
      progressing: valueOf(samples, "condition", "NatsCluster", { type: "Progressing" }),
      reason: of(samples, "condition", "NatsCluster").find((x) => x.labels["type"] === "Progressing")?.labels["reason"],
    }).toEqual({ version: ["2.15.3"], pending: 0, progressing: 0, reason: "RolloutComplete" });
  });

  it("reports the expiry of a JWT sign-account signed: the JWT's exp claim", async () => {
    if (!env) throw new Error("no environment");
    const kube = env.kube;
    const operator = await startOperator(env.transport, {
      functions: [signAccount],
      namespaces: [signedNamespace],
      kube: confinedKube(kube, [signedNamespace, "nats-operator"]),
      pingSources: false,
    });
    try {
      const object = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
        ({
          apiVersion: "auth.nats-operator.io/v1beta1",
          kind,
          metadata: { name, namespace: signedNamespace },
          spec,
        }) as KubeObject;
      await kube.create(object("NatsOperator", "main", { systemAccountRef: { name: "sys" } }));
      await kube.create(object("NatsSystemAccount", "sys", { operatorRef: { name: "main" } }));
      await kube.create(object("NatsAccount", "app", { operatorRef: { name: "main" }, jwtTTL: "2h" }));
      const jwt = await waitFor(
        "the account's JWT",
        async () => {
          const account = await kube.get<KubeObject & { status?: { jwt?: string; jwtExpires?: string } }>({
            apiVersion: "auth.nats-operator.io/v1beta1",
            kind: "NatsAccount",
            namespace: signedNamespace,
            name: "app",
          });
          return account?.status?.jwtExpires ? account.status.jwt : undefined;
        },
        { timeoutMs: 60_000 },
      );
      const exp = decodeJwt(jwt ?? "").exp;
      expect(exp).toBeGreaterThan(Date.now() / 1000);
      const reported = await waitFor("the signed account's expiry series", async () =>
        (await scrape()).find(
          (x) =>
            x.name === "nats_operator_status_account_jwt_expiry_timestamp_seconds" &&
            x.labels["namespace"] === signedNamespace &&
            x.labels["name"] === "app",
        ),
      );
      expect(reported.value).toBe(exp);
    } finally {
      await operator.stop();
    }
  }, 120_000);
});
