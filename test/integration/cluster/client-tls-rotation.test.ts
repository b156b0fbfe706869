// harness: real node
// A NatsCluster's client TLS from a Secret the user keeps (as cert-manager or a script would): the
// servers serve its certificate, and when the Secret is rotated the new certificate reaches every
// server with no edit of the NatsCluster. The Secret's own event is what starts it (the
// ApiServerSource watches every Secret in Reference mode). This cluster has no system credentials,
// so servers cannot be asked to reload over $SYS: the rotation is a rolling restart (with them it
// is a reload, as test/integration/cluster/reload.test.ts shows for other config changes). Rotated
// again while every Secret event is lost (an operator restarted with NATS_OPERATOR_FAULTS dropping
// them, as an ApiServerSource adapter scaled to zero would), it reaches every server through the
// resync: the cluster's recorded inputs no longer match, and the first sweep to see it reconciles it.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect } from "@nats-io/transport-node";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { condition, readCluster, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { faults, resyncPingSources, sweepThatFoundIt } from "../support/resync.ts";
import { createCertificateAuthority, tlsSecret, type CertificateAuthority } from "./support/tls-secrets.ts";
import { waitFor } from "../../harness/wait.ts";

const NAME = "demo";
let env: Environment;
let operator: RunningOperator;
let namespace: string;
const authorities: CertificateAuthority[] = [];

const hosts = () => [`${NAME}.${namespace}.svc`, `*.${NAME}-headless.${namespace}.svc`];
const serverUrl = (ordinal: number) => `tls://${NAME}-${ordinal}-0.${NAME}-headless.${namespace}.svc:4222`;

async function issuedBy(ca: CertificateAuthority): Promise<KubeObject> {
  return tlsSecret(namespace, "demo-client-tls", await ca.issue("demo", hosts()));
}

/** Whether a client trusting only `caPem` completes a TLS connection to the server. */
async function trustedBy(caPem: string, ordinal: number): Promise<boolean> {
  try {
    const nc = await connect({ servers: serverUrl(ordinal), tls: { ca: caPem }, reconnect: false, timeout: 5_000 });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("client-tls");
  // Watching Secrets as the nats-operator-secrets ApiServerSource does.
  operator = await startOperator(env.transport, { extraKinds: ["Secret"] });
  const first = await createCertificateAuthority();
  authorities.push(first);
  await env.kube.create(await issuedBy(first));
  await env.kube.create({
    apiVersion: "cluster.nats-operator.io/v1beta1",
    kind: "NatsCluster",
    metadata: { name: NAME, namespace },
    spec: {
      version: "2.15.2",
      replicas: 2,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "128Mi" } },
      tls: { secretRef: { name: "demo-client-tls" } },
    },
  } as KubeObject);
  await waitAtRest(env.kube, namespace, 240_000, NAME);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
  for (const ca of authorities) await ca.dispose();
}, 120_000);

describe("client TLS from a user's Secret", () => {
  it("is served by every server", async () => {
    const secret = await env.kube.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      name: "demo-client-tls",
    });
    const ca = Buffer.from(secret?.data["ca.crt"] ?? "", "base64").toString("utf8");
    expect([await trustedBy(ca, 0), await trustedBy(ca, 1)]).toEqual([true, true]);
  });

  it("rotated in its Secret, reaches every server with no NatsCluster edit (by restart: no system credentials)", async () => {
    const before = (await readCluster(env.kube, namespace, NAME)) as Cluster;
    const generation = before.metadata.generation;
    const pods = async () =>
      (await env.kube.list<KubeObject>({ apiVersion: "v1", kind: "Pod", namespace })).map((p) => p.metadata.uid).sort();
    const uids = await pods();
    const next = await createCertificateAuthority();
    authorities.push(next);
    const rotated = await issuedBy(next);
    await env.kube.apply(rotated, "client-tls-rotation-test");
    const nextCa = (rotated as unknown as { stringData: Record<string, string> }).stringData["ca.crt"] ?? "";
    const after = await waitFor(
      "the rotated certificate applied",
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
    expect(after.metadata.generation).toBe(generation);
    expect(after.status?.config?.appliedBy).toBe("Restart");
    expect((await pods()).filter((uid) => uids.includes(uid))).toEqual([]);
    await waitFor(
      "servers presenting the new certificate",
      async () => (await trustedBy(nextCa, 0)) && (await trustedBy(nextCa, 1)),
      { timeoutMs: 60_000 },
    );
  }, 240_000);
});

describe("client TLS rotated while every Secret event is lost", () => {
  it("reaches every server through the resync, found by the first sweep after the rotation", async () => {
    await operator.stop();
    operator = await startOperator(env.transport, { extraKinds: ["Secret"], faults: faults("drop=1,kinds=Secret") });
    for (const source of await resyncPingSources(namespace, "*/5 * * * * *")) await env.kube.create(source);
    const before = (await readCluster(env.kube, namespace, NAME)) as Cluster;
    const next = await createCertificateAuthority();
    authorities.push(next);
    const rotated = await issuedBy(next);
    const rotatedAt = Date.now();
    await env.kube.apply(rotated, "client-tls-rotation-test");
    const nextCa = (rotated as unknown as { stringData: Record<string, string> }).stringData["ca.crt"] ?? "";
    await waitFor(
      "the rotated certificate rendered",
      async () =>
        (await readCluster(env.kube, namespace, NAME))?.status?.config?.revision !== before.status?.config?.revision,
      { timeoutMs: 60_000 },
    );
    const renderedIn = Date.now() - rotatedAt;
    // Its event was lost: a sweep found it. A sweep under way at the rotation may have listed before
    // it; the next one must not miss it.
    expect(operator.faults.dropped).toBeGreaterThan(0);
    // The tick's answer comes once its whole sweep is done, after the object's own reconcile.
    expect(await sweepThatFoundIt(operator, "render-cluster", rotatedAt)).toBeLessThanOrEqual(1);
    await waitFor(
      "servers presenting the certificate rotated without its event",
      async () => (await trustedBy(nextCa, 0)) && (await trustedBy(nextCa, 1)),
      { timeoutMs: 180_000, intervalMs: 2_000 },
    );
    process.stdout.write(
      `client TLS rotated without its event: rendered after ${renderedIn} ms (resync every 5 s), ` +
        `on every server after ${Date.now() - rotatedAt} ms; ${operator.faults.dropped} Secret events dropped\n`,
    );
  }, 260_000);
});
