// An installation confined by watchNamespaces (WATCH_NAMESPACES, shared/kube/confined.ts): the
// functions' API client sees only the watched namespaces, so the same objects in another namespace
// are ignored, whether an event names them or a resync sweeps. sign-account, which needs no NATS
// server, shows it: the NatsOperator in the watched namespace gets its keys, its twin does not.
// The cluster functions too: render-cluster and step-rollout bring a NatsCluster in the watched
// namespace to rest and leave its twin elsewhere untouched.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { renderCluster } from "../../../functions/render-cluster/index.ts";
import { signAccount } from "../../../functions/sign-account/index.ts";
import { stepRollout } from "../../../functions/step-rollout/index.ts";
import { confinedKube } from "../../../shared/kube/confined.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { pingEvent } from "../../../shared/local/ping-event.ts";
import { RESYNC_WORK } from "../../../shared/runtime/resync.ts";
import { waitFor } from "../../harness/wait.ts";
import { API_VERSION, readCluster, waitAtRest } from "../cluster/support/natscluster.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";

let env: Environment;
let operator: RunningOperator;
let watched: string;
let other: string;

type WithStatus = KubeObject & { status?: { publicKey?: string } };

const natsOperator = (namespace: string): KubeObject =>
  ({
    apiVersion: "auth.nats-operator.io/v1beta1",
    kind: "NatsOperator",
    metadata: { name: "main", namespace },
    spec: { systemAccountRef: { name: "sys" } },
  }) as KubeObject;
const read = (namespace: string) =>
  env.kube.get<WithStatus>({
    apiVersion: "auth.nats-operator.io/v1beta1",
    kind: "NatsOperator",
    namespace,
    name: "main",
  });
const generatedSecrets = async (namespace: string) =>
  (
    await env.kube.list({
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      labelSelector: "app.kubernetes.io/managed-by=nats-operator",
    })
  ).map((s) => s.metadata.name);

beforeAll(async () => {
  env = await startEnvironment();
  [watched, other] = await Promise.all([env.namespace("watched"), env.namespace("unwatched")]);
  // Every namespace's events reach the function, as a forged one could: only its client is confined.
  operator = await startOperator(env.transport, {
    functions: [signAccount],
    extraKinds: ["NatsOperator", "Secret"],
    kube: confinedKube(env.kube, [watched, "nats-operator"]),
    pingSources: false,
  });
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 60_000);

describe("an installation confined to some namespaces", () => {
  it("signs the NatsOperator of a watched namespace and ignores its twin elsewhere, on events and on resync", async () => {
    await env.kube.create(natsOperator(other));
    await env.kube.create(natsOperator(watched));
    const key = await waitFor("the watched NatsOperator's key", async () => (await read(watched))?.status?.publicKey, {
      timeoutMs: 60_000,
    });
    expect(key).toMatch(/^O/);
    const tick = pingEvent("nats-operator", "sign-account-resync", {
      data: JSON.stringify(RESYNC_WORK),
      ceOverrides: { extensions: { target: "sign-account" } },
    });
    expect((await operator.deliver(signAccount, tick)).kind).toBe("done");
    await operator.settle();
    expect((await read(other))?.status).toBeUndefined();
    expect(await generatedSecrets(other)).toEqual([]);
    expect((await generatedSecrets(watched)).length).toBeGreaterThan(0);
  }, 120_000);
});

describe("an installation confined to some namespaces, for its NatsClusters", () => {
  let clusters: RunningOperator;
  const natsCluster = (namespace: string): KubeObject =>
    ({
      apiVersion: API_VERSION,
      kind: "NatsCluster",
      metadata: { name: "demo", namespace },
      spec: { version: "2.15.2", replicas: 1 },
    }) as KubeObject;
  /** The names of `kind` in `namespace` that belong to the cluster `demo`. */
  const ours = async (namespace: string, apiVersion: string, kind: string) =>
    (await env.kube.list({ apiVersion, kind, namespace }))
      .map((o) => o.metadata.name)
      .filter((n) => n.startsWith("demo"));

  beforeAll(async () => {
    // The cluster functions, their client confined as a confined install's is; events of every namespace.
    clusters = await startOperator(env.transport, {
      functions: [renderCluster, stepRollout],
      kube: confinedKube(env.kube, [watched, "nats-operator"]),
      pingSources: false,
    });
  }, 60_000);

  afterAll(async () => {
    await clusters?.stop();
  }, 60_000);

  it("brings the NatsCluster of a watched namespace to rest and leaves its twin elsewhere untouched, on events and on resync", async () => {
    await env.kube.create(natsCluster(other));
    await env.kube.create(natsCluster(watched));
    await waitAtRest(env.kube, watched, 180_000).catch((error: unknown) => {
      process.stdout.write(clusters.log.slice(-40).join(""));
      throw error;
    });
    for (const fn of [renderCluster, stepRollout]) {
      const tick = pingEvent("nats-operator", `${fn.name}-resync`, {
        data: JSON.stringify(RESYNC_WORK),
        ceOverrides: { extensions: { target: fn.name } },
      });
      expect((await clusters.deliver(fn, tick)).kind).toBe("done");
    }
    await clusters.settle();

    const twin = await readCluster(env.kube, other);
    expect({ status: twin?.status, finalizers: twin?.metadata.finalizers }).toEqual({
      status: undefined,
      finalizers: undefined,
    });
    expect(await ours(other, "apps/v1", "StatefulSet")).toEqual([]);
    expect(await ours(other, "v1", "Service")).toEqual([]);
    expect(await ours(other, "v1", "ConfigMap")).toEqual([]);
    expect(await ours(watched, "apps/v1", "StatefulSet")).not.toEqual([]);
  }, 240_000);
});
