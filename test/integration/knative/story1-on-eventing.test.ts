// Story 1 on real Knative Eventing: the operator's own manifests installed on a control plane
// running Knative's controllers, webhook, ApiServerSource adapters, PingSource adapter, Broker
// ingress/filter and in-memory channel (built from knative.dev/eventing), with every function
// running as its own pod. Nothing here calls a function: every event goes ApiServerSource →
// Broker → Trigger → function pod over HTTP, and PingSources are Knative's.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { waitFor } from "../cluster/support/natscluster.ts";
import {
  rollOut,
  startKnativeCluster,
  story1Cluster,
  stream,
  waitClusterAtRest,
  waitSynced,
  type KnativeCluster,
} from "./support/knative-cluster.ts";

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

  it("syncs story 1's NatsStream through its NatsConnection", async () => {
    await waitSynced(cluster(), "demo", "orders", 180_000);
    expect((await cluster().conditions("natsstream", "demo", "orders"))["Ready"]).toBe("True/Synced");
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
      60_000,
      1_000,
    );
    expect(note).toMatch(/answered 400\); the next resync reconciles the object$/);
  }, 120_000);

  it("rolls a spec change out one server at a time, each server replaced once", async () => {
    const watch = await rollOut(cluster(), "demo", "300Mi", 420_000);
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    // The original pod and its one replacement: no server restarted twice for one revision.
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 450_000);
});
