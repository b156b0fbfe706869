// The event path under faults, on real Knative Eventing. Every event reaches every function twice
// (a second Trigger per function, delivered concurrently), and Knative's and our own pods are
// killed while work is in flight; each scenario must end where a clean run ends: the cluster at
// rest, a rollout with at most one server down and each server replaced once, streams Synced.
// Objects that existed before the operator was installed are covered by knative/story1-on-eventing.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { stringify } from "yaml";
import { operatorManifestsWithoutServing } from "../knative/support/operator-on-eventing.ts";
import {
  rollOut,
  startKnativeCluster,
  story1Cluster,
  stream,
  waitClusterAtRest,
  waitSynced,
  type KnativeCluster,
} from "../knative/support/knative-cluster.ts";

const NS = "chaos";
let k: KnativeCluster | undefined;
const cluster = (): KnativeCluster => {
  if (k === undefined) throw new Error("no control plane");
  return k;
};

/** A second Trigger for each function with the same filters and subscriber: every event twice. */
async function duplicateTriggers(): Promise<string> {
  const triggers = (await operatorManifestsWithoutServing()).filter((m) => m.kind === "Trigger");
  return triggers
    .map((t) => stringify({ ...t, metadata: { ...t.metadata, name: `${t.metadata.name}-again` } }))
    .join("---\n");
}

beforeAll(async () => {
  k = await startKnativeCluster();
  await k.installOperator();
  await k.apply(await duplicateTriggers());
  await k.kubectl("wait", "--for=condition=Ready", "triggers", "--all", "-n", "nats-operator", "--timeout=180s");
  await k.apply(story1Cluster(NS));
  await waitClusterAtRest(k, NS, 300_000);
}, 900_000);

afterAll(async () => {
  await k?.stop();
}, 120_000);

describe("with every event delivered twice", () => {
  it("rolls a change out with at most one server down, each server replaced once", async () => {
    const watch = await rollOut(cluster(), NS, "300Mi", 420_000);
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 450_000);

  it("finishes a rollout whose step-rollout pod is killed after the first server moved", async () => {
    const { kubectl } = cluster();
    const watch = await rollOut(cluster(), NS, "320Mi", 420_000, async () => {
      await kubectl(
        "delete",
        "pods",
        "-n",
        "nats-operator",
        "-l",
        "app.kubernetes.io/name=step-rollout",
        "--wait=false",
      );
    });
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 450_000);

  it("syncs a stream created while the ApiServerSource adapter is being replaced", async () => {
    const { kubectl, apply } = cluster();
    await kubectl(
      "delete",
      "pods",
      "-n",
      "nats-operator",
      "-l",
      "eventing.knative.dev/sourceName=nats-operator-resources",
      "--wait=false",
    );
    await apply(stream(NS, "during-adapter-restart", "ADAPTER"));
    await waitSynced(cluster(), NS, "during-adapter-restart", 240_000);
  }, 260_000);

  it("syncs a stream created while the Broker's filter is down", async () => {
    const { kubectl, apply } = cluster();
    await kubectl(
      "delete",
      "pods",
      "-n",
      "knative-eventing",
      "-l",
      "eventing.knative.dev/brokerRole=filter",
      "--wait=false",
    );
    await apply(stream(NS, "during-filter-restart", "FILTER"));
    await waitSynced(cluster(), NS, "during-filter-restart", 240_000);
  }, 260_000);
});
