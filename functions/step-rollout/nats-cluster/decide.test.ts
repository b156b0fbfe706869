import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { jszOf, reportsOf } from "../../../test/fixtures/cluster/jsz.ts";
import { type Cluster, planCluster } from "../../cluster/index.ts";
import { decide } from "./decide.ts";
import type { RolloutStepDecision, Observed, StatefulSet } from "./types.ts";
import type { SystemUser } from "../servers/system-user.ts";

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

  describe("a running JetStream cluster given gateway remotes into a supercluster", () => {
    const remotes = (...names: string[]) => ({
      gateway: {
        discovery: "Explicit" as const,
        remotes: [...names, "demo"].map((name) => ({ name, url: `tls://${name}-gateway.example:7222` })),
        tls: { secretRef: { name: "gw" } },
      },
    });
    /** Running on its own: three servers in a meta group of theirs. */
    const standalone = () => withFinalizer(demoCluster());
    /** Given remotes while at rest on the revision step-rollout last recorded. */
    const joining = (...names: string[]): Cluster => ({
      ...withFinalizer(demoCluster(remotes(...names))),
      status: {
        config: { revision: "last-good", appliedBy: "Restart" },
        conditions: [
          {
            type: "Progressing",
            status: "False",
            reason: "UpToDate",
            message: "every server runs the target revision",
            lastTransitionTime: NOW.toISOString(),
          },
        ],
      },
    });
    const withReports = (seen: Observed, reports: Observed["reports"]): Observed => ({ ...seen, reports });
    const OWN = "servers demo-0, demo-1, demo-2 run a JetStream meta group of their own (3 peers, all in this cluster)";

    it("adding a gateway remote to servers leading a meta group of their own holds them at their last render: OwnMetaGroup", () => {
      const decision = rollout(decide(observed(joining("east", "west"), standalone(), READY_USER), NOW));
      expect(decision.step).toEqual({ kind: "none" });
      expect(decision.reloads).toEqual([]);
      expect(decision.status.rollout).toBeUndefined();
      expect(decision.status.config).toEqual({ revision: "last-good", appliedBy: "Restart" });
      const held = progressing(decision);
      expect(held).toMatchObject({ status: "False", reason: "OwnMetaGroup" });
      expect(held?.message).toContain(OWN);
      expect(held?.message).toContain("which nats-server cannot merge");
      expect(held?.message).toContain(
        "delete this NatsCluster (it waits for its streams to go, or for the cluster.nats-operator.io/force-delete " +
          "annotation) and its claims (kubectl -n nats-system delete pvc data-demo-0-0 data-demo-1-0 data-demo-2-0)",
      );
      expect(decision.events).toEqual([{ type: "Warning", reason: "OwnMetaGroup", note: held?.message }]);
      expect(decision.poll).toBe(true);
    });

    it("tells the hold once: a delivery that finds it recorded records no second event", () => {
      const first = rollout(decide(observed(joining("east"), standalone()), NOW));
      const recorded: Cluster = { ...joining("east"), status: first.status };
      const again = rollout(decide(observed(recorded, standalone()), NOW));
      expect(progressing(again)?.reason).toBe("OwnMetaGroup");
      expect(again.events).toEqual([]);
    });

    it("dropping the JetStream domain of servers in a meta group of their own holds them the same way", () => {
      const store = demoCluster().spec.jetstream ?? {};
      const apart = withFinalizer(demoCluster({ ...remotes("east"), jetstream: { ...store, domain: "edge" } }));
      const decision = rollout(decide(observed(joining("east"), apart), NOW));
      expect(decision.step).toEqual({ kind: "none" });
      expect(progressing(decision)?.message).toContain(OWN);
    });

    it("servers whose meta group spans other clusters take the new remotes", () => {
      const reports = reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", revision: "r" }).map((r) => ({
        ...r,
        jsz: jszOf(r.server, {
          metaLeader: "demo-1",
          streamLeader: "demo-2",
          names: ["demo-0", "demo-1", "demo-2", "central-0"],
        }),
      }));
      const seen = withReports(observed(joining("east"), standalone()), reports);
      const decision = rollout(decide(seen, NOW));
      expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
      expect(decision.events.map((e) => e.reason)).toEqual(["RolloutStep"]);
    });

    it("servers whose meta leader is another cluster's take the new remotes, though followers list no peers", () => {
      const follower = (server: string) => ({
        server,
        varz: { server_name: server, version: "2.15.2" },
        jsz: { meta_cluster: { leader: "central-0" } },
      });
      const seen = withReports(observed(joining("east"), standalone()), ["demo-0", "demo-1", "demo-2"].map(follower));
      expect(rollout(decide(seen, NOW)).step).toMatchObject({ kind: "restart", server: "demo-2" });
    });

    it("when the meta group cannot be observed, it waits with ObservationFailed", () => {
      const silent = reportsOf({
        metaLeader: "demo-1",
        streamLeader: "demo-2",
        silent: ["demo-0", "demo-1", "demo-2"],
      });
      const decision = rollout(decide(withReports(observed(joining("east"), standalone()), silent), NOW));
      expect(decision.step).toEqual({ kind: "none" });
      expect(progressing(decision)).toMatchObject({
        status: "False",
        reason: "ObservationFailed",
        message: expect.stringContaining("demo-0: no answer; demo-1: no answer; demo-2: no answer") as unknown,
      });
      expect(decision.events).toEqual([]);
      expect(decision.poll).toBe(true);
    });

    it("waits as well while only followers answer, naming a leader of this cluster", () => {
      const reports = reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", silent: ["demo-1"] });
      const decision = rollout(decide(withReports(observed(joining("east"), standalone()), reports), NOW));
      expect(progressing(decision)).toMatchObject({
        reason: "ObservationFailed",
        message: expect.stringContaining("demo-1: no answer") as unknown,
      });
    });

    it("servers already dialling another cluster take more remotes without their meta group being read", () => {
      const silent = reportsOf({
        metaLeader: "demo-1",
        streamLeader: "demo-2",
        silent: ["demo-0", "demo-1", "demo-2"],
      });
      const running = withFinalizer(demoCluster(remotes("central")));
      const seen = withReports(observed(joining("central", "east"), running), silent);
      const decision = rollout(decide(seen, NOW));
      expect(progressing(decision)?.reason).not.toMatch(/OwnMetaGroup|ObservationFailed/);
      expect(decision.status.config?.revision).toBe(seen.plan.revision);
    });

    it("servers that ran without JetStream hold no meta group: JetStream and remotes added together roll out", () => {
      const plain = withFinalizer(demoCluster({ jetstream: undefined }));
      const seen = observed(joining("east"), plain);
      const decision = rollout(decide(seen, NOW));
      expect(progressing(decision)?.reason).not.toMatch(/OwnMetaGroup|ObservationFailed/);
      expect(decision.status.config?.revision).toBe(seen.plan.revision);
    });

    it("a new cluster with remotes from the start is not held", () => {
      const fresh: Observed = {
        ...observed(joining("east")),
        statefulSets: new Map(),
        configMaps: new Map(),
        reports: [],
      };
      const decision = rollout(decide(fresh, NOW));
      expect(progressing(decision)).toMatchObject({ status: "True", reason: "Creating" });
      expect(decision.events).toEqual([]);
    });
  });
});
