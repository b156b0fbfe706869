// Story 1 as a user runs it: Knative Eventing and Serving (with Traefik as the networking layer)
// built from their Go modules, the operator installed by `helm install` of chart/ with the
// harness's helm, then story 1's manifests applied with kubectl. Every function is a Knative
// Service that starts at zero pods: each event goes ApiServerSource → Broker → Trigger →
// Traefik → activator → a revision's pod (queue-proxy beside the function), scaled from zero.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  functionPods,
  helmInstallOperator,
  rollOut,
  startKnativeCluster,
  story1Cluster,
  stream,
  waitClusterAtRest,
  waitSynced,
  type KnativeCluster,
} from "./support/knative-cluster.ts";
import { waitFor } from "../../harness/wait.ts";

const FUNCTIONS = [
  "balance",
  "nats-operator-dead-letter",
  "render-cluster",
  "sign-account",
  "step-rollout",
  "sync-stream",
];

let k: KnativeCluster | undefined;
const cluster = (): KnativeCluster => {
  if (k === undefined) throw new Error("no control plane");
  return k;
};

/** Names of the running pods of the operator's Knative Services. */
const functionPodNames = async (): Promise<string[]> => [...(await functionPods(cluster())).values()];

async function waitScaledToZero(timeoutMs: number): Promise<void> {
  await waitFor(
    "every function scaled to zero",
    async () => ((await functionPodNames()).length === 0 ? true : undefined),
    { timeoutMs, intervalMs: 2_000 },
  );
}

beforeAll(async () => {
  k = await startKnativeCluster({ serving: true });
  await helmInstallOperator(k);
}, 900_000);

afterAll(async () => {
  await k?.stop();
}, 120_000);

describe("the operator installed by helm on real Knative Serving", () => {
  it("has every function as a Ready Knative Service, cluster-local, and `helm test` passes", async () => {
    const { kubectl, helm } = cluster();
    const out = await kubectl(
      "get",
      "ksvc",
      "-n",
      "nats-operator",
      "-o",
      'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {.status.url}{"\\n"}{end}',
    );
    const services = out.split("\n").filter((l) => l !== "");
    expect(services.map((l) => l.slice(0, l.indexOf("=")))).toEqual(FUNCTIONS);
    for (const line of services) expect(line).toMatch(/=True http:\/\/[a-z-]+\.nats-operator\.svc\.cluster\.local$/);
    await helm("test", "nats-operator", "-n", "nats-operator", "--timeout=5m");
  }, 400_000);

  it("runs no function pod once idle", async () => {
    await waitScaledToZero(180_000);
  }, 200_000);

  it("brings story 1's NatsCluster to Ready and Settled, each function started from zero by its events", async () => {
    const { apply } = cluster();
    const started = new Set<string>();
    const sampler = setInterval(() => {
      void functionPodNames().then(
        (pods) => pods.forEach((p) => started.add(p.replace(/-\d+-deployment-.*$/, ""))),
        () => undefined,
      );
    }, 1_000);
    try {
      await apply(story1Cluster("demo"));
      await waitClusterAtRest(cluster(), "demo", 420_000);
    } finally {
      clearInterval(sampler);
    }
    expect([...started]).toEqual(expect.arrayContaining(["render-cluster", "step-rollout"]));
  }, 450_000);

  it("syncs story 1's NatsStream", async () => {
    // Applied after the cluster is at rest, as story 1's step 3 is.
    await cluster().apply(stream("demo", "orders", "ORDERS"));
    await waitSynced(cluster(), "demo", "orders", 180_000);
    expect((await cluster().conditions("natsstream", "demo", "orders"))["Ready"]).toBe("True/Synced");
  }, 200_000);

  it("rolls a spec change out one server at a time", async () => {
    const watch = await rollOut(cluster(), "demo", "300Mi", 480_000);
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 500_000);

  it("scales back to zero function pods after the work is done", async () => {
    await waitScaledToZero(240_000);
  }, 260_000);

  it("`helm uninstall` removes the operator and keeps the CRDs and the user's objects", async () => {
    const { kubectl, helm } = cluster();
    await helm("uninstall", "nats-operator", "-n", "nats-operator", "--wait", "--timeout=5m");
    const operatorObjects = async () =>
      (
        await kubectl(
          "get",
          "ksvc,triggers,brokers,apiserversources,pingsources,serviceaccounts",
          "-n",
          "nats-operator",
          "-l",
          "app.kubernetes.io/part-of=nats-operator",
          "-o",
          "name",
        )
      ).trim();
    // Knative's finalizers keep an ApiServerSource or a Trigger a moment after helm returns: helm
    // v4's `--wait` counts an object whose watch has not reported yet as gone.
    let left = await operatorObjects();
    await waitFor("the operator's objects gone", async () => (left = await operatorObjects()) === "" || undefined, {
      timeoutMs: 120_000,
    }).catch(() => undefined);
    expect(left).toBe("");
    const roles = await kubectl("get", "clusterroles", "-l", "app.kubernetes.io/part-of=nats-operator", "-o", "name");
    expect(roles.trim()).toBe("");
    expect(await kubectl("get", "crd", "natsclusters.cluster.nats-operator.io", "-o", "name")).toContain(
      "natsclusters",
    );
    expect(await kubectl("get", "natscluster", "demo", "-n", "demo", "-o", "name")).toContain("demo");
    expect(await kubectl("get", "natsstream", "orders", "-n", "demo", "-o", "name")).toContain("orders");
  }, 360_000);
});
