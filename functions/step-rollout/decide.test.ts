import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { reportsOf } from "../../test/fixtures/cluster/jsz.ts";
import { type Cluster, planCluster } from "../cluster/index.ts";
import { decide, type RolloutStepDecision } from "./decide.ts";
import type { Observed, StatefulSet } from "./observe.ts";
import type { SystemUser } from "./system-user.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const READY_USER: SystemUser = { kind: "ready", settings: { servers: ["nats://demo"], fingerprint: "f" } };
const JETSTREAM_DATA = "cluster.nats-operator.io/jetstream-data";

/** `cluster` observed while its three servers still run `running`'s render, Ready and Settled. */
function observed(cluster: Cluster, running: Cluster = cluster, systemUser: SystemUser = { kind: "none" }): Observed {
  const before = planCluster({ cluster: running });
  const statefulSets = new Map(
    before.servers.map((s): [string, StatefulSet] => [
      s.name,
      {
        ...(s.statefulSet as StatefulSet),
        metadata: { ...s.statefulSet.metadata, generation: 1, resourceVersion: "7" },
        status: { observedGeneration: 1, readyReplicas: 1, updatedReplicas: 1 },
      },
    ]),
  );
  return {
    cluster,
    plan: planCluster({ cluster }),
    certificatesReady: true,
    statefulSets,
    configMaps: new Map(before.servers.map((s) => [s.configMap.metadata.name, s.configMap])),
    foreign: [],
    reports: reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", revision: before.revision }),
    systemUser,
  };
}

const withFinalizer = (cluster: Cluster): Cluster => ({
  ...cluster,
  metadata: { ...cluster.metadata, finalizers: [JETSTREAM_DATA] },
});
const rollout = (decision: ReturnType<typeof decide>): RolloutStepDecision => {
  if (decision.kind !== "rollout") throw new Error(`expected a rollout decision, got ${decision.kind}`);
  return decision;
};
const progressing = (decision: RolloutStepDecision) =>
  decision.status.conditions?.find((c) => c.type === "Progressing");
const resized = (memory: string) =>
  withFinalizer(demoCluster({ resources: { requests: { cpu: "1", memory }, limits: { memory } } }));

describe("step-rollout decision", () => {
  it("is at rest, writes nothing new and stops polling when every server runs the render", () => {
    const cluster = withFinalizer(demoCluster());
    const decision = rollout(decide(observed(cluster), NOW));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.reloads).toEqual([]);
    expect(progressing(decision)?.reason).toBe("UpToDate");
    expect(decision.poll).toBe(false);
  });

  it("restarts the highest ordinal first on a memory change, claimed by the status it writes", () => {
    const decision = rollout(decide(observed(resized("5Gi"), withFinalizer(demoCluster())), NOW));
    expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
    expect(decision.status.rollout).toMatchObject({ current: "demo-2", pending: ["demo-0", "demo-1"] });
    expect(decision.status.config).toMatchObject({ restartReason: "the StatefulSet spec is restart-only" });
    expect(decision.events).toEqual([{ type: "Normal", reason: "RolloutStep", note: "restarting demo-2" }]);
    expect(decision.poll).toBe(true);
  });

  it("reloads every server at once, and restarts none, when every changed path reloads and the system user is ready", () => {
    const running = withFinalizer(demoCluster());
    const tagged = withFinalizer(demoCluster({ serverTags: { zone: "a" } }));
    const decision = rollout(decide(observed(tagged, running, READY_USER), NOW));
    expect(decision.reloads.map((r) => [r.server, r.step.kind])).toEqual([
      ["demo-0", "start-reload"],
      ["demo-1", "start-reload"],
      ["demo-2", "start-reload"],
    ]);
    expect(decision.step).toEqual({ kind: "none" });
    expect(progressing(decision)).toMatchObject({ status: "True", reason: "ReloadPending" });
    expect(decision.status.config?.appliedBy).toBe("Reload");
    expect(decision.poll).toBe(true);
  });

  it("restarts a reloadable change when there is no system user to reload with", () => {
    const running = withFinalizer(demoCluster());
    const tagged = withFinalizer(demoCluster({ serverTags: { zone: "a" } }));
    const decision = rollout(decide(observed(tagged, running), NOW));
    expect(decision.reloads).toEqual([]);
    expect(decision.step).toMatchObject({ kind: "restart", server: "demo-2" });
    expect(decision.status.config?.restartReason).toBe("no system credentials to reload with");
  });

  it("decides the same twice from the same observation", () => {
    const seen = observed(resized("5Gi"), withFinalizer(demoCluster()));
    expect(decide(seen, NOW)).toEqual(decide(seen, NOW));
  });

  it("adds the jetstream-data finalizer to a JetStream cluster that lacks it", () => {
    expect(rollout(decide(observed(demoCluster()), NOW)).finalizer).toBe("add");
  });

  it("takes a replace-server request: marks that server for replacement and clears the annotation", () => {
    const cluster = withFinalizer(
      demoCluster({}, { annotations: { "cluster.nats-operator.io/replace-server": "demo-1" } }),
    );
    const decision = rollout(decide(observed(cluster), NOW));
    expect(decision.replaceRequest).toEqual({ server: "demo-1" });
    expect(decision.status.removals).toEqual([{ name: "demo-1", phase: "Requested", since: NOW.toISOString() }]);
  });

  it("keeps a deleting cluster whose streams remain, saying so, and polls", () => {
    const deleting = withFinalizer(demoCluster({}, { deletionTimestamp: NOW.toISOString() }));
    const decision = decide(observed(deleting), NOW);
    expect(decision).toMatchObject({ kind: "finalize", release: false, poll: true });
    expect(decision.status.conditions?.find((c) => c.type === "Deleting")).toMatchObject({
      status: "True",
      reason: "JetStreamDataRemains",
      message: "1 stream group remain: ORDERS",
    });
  });
});
