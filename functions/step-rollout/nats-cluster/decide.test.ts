import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { jszOf, reportsOf } from "../../../test/fixtures/cluster/jsz.ts";
import { claimName, type Cluster, planCluster, serverLabels } from "../../cluster/index.ts";
import { REMOVAL_ANNOTATION } from "../../../shared/api/index.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { decide } from "./decide.ts";
import type { RolloutStepDecision, Observed, StatefulSet } from "./types.ts";
import type { SystemUser } from "../servers/types.ts";
import {
  CRASH_LOOPING,
  ERR_IMAGE_PULL,
  EXPORTER_RUNNING,
  IMAGE_PULL_BACK_OFF,
  OOM_KILLED,
  POD_SECURITY_REFUSAL,
  podOf,
} from "../../../test/fixtures/cluster/pod-failures.ts";
import type { ContainerStatus } from "./types.ts";

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
    pods: new Map(),
    failedCreates: new Map(),
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
    console.log(JSON.stringify(decision.status.conditions), decision.summary, JSON.stringify(decision.rollout.polling));
    expect(decision.poll).toBe(false);
  });

  it("restarts the highest ordinal first on a memory change, claimed by the status it writes", () => {
    const decision = rollout(decide(observed(resized("5Gi"), withFinalizer(demoCluster())), NOW));
    expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
    expect(decision.status.rollout).toMatchObject({ current: "demo-2", pending: ["demo-0", "demo-1"] });
    // What `kubectl get` prints: a printer column cannot count a list.
    expect(decision.status.rollout).toMatchObject({ updatedCount: 0, pendingCount: 2 });
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
  describe("a server whose pod does not come up", () => {
    const PSA_CAUSE =
      'pod refused by the namespace\'s Pod Security level "restricted:latest": privileged (container "nats" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "nats" must set securityContext.allowPrivilegeEscalation=false)';
    const cluster = () => withFinalizer(demoCluster());
    /** `servers` not Ready: each with the pod whose containers are given, or without a pod (and the Event, if any). */
    function failing(
      seen: Observed,
      servers: Record<string, { statuses?: ContainerStatus[]; failedCreate?: string }>,
    ): Observed {
      const statefulSets = new Map(seen.statefulSets);
      const pods = new Map(seen.pods);
      const failedCreates = new Map(seen.failedCreates);
      for (const [server, { statuses, failedCreate }] of Object.entries(servers)) {
        const sts = statefulSets.get(server);
        if (sts)
          statefulSets.set(server, { ...sts, status: { observedGeneration: 1, readyReplicas: 0, updatedReplicas: 1 } });
        if (statuses) pods.set(server, podOf(server, statuses));
        const message = failedCreate?.replaceAll("demo-0", server);
        if (message) failedCreates.set(server, { message, at: "2026-12-03T09:59:00Z" });
      }
      const silent = Object.keys(servers);
      const reports = seen.reports.map((r) => (silent.includes(r.server) ? { server: r.server } : r));
      return { ...seen, statefulSets, pods, failedCreates, reports };
    }
    const ready = (decision: RolloutStepDecision) => decision.status.conditions?.find((c) => c.type === "Ready");
    const previously = (reason: string): Cluster => ({
      ...cluster(),
      status: {
        conditions: [
          { type: "Ready", status: "False", reason, message: "earlier", lastTransitionTime: NOW.toISOString() },
        ],
      },
    });

    it("refused by Pod Security on every server: Ready=False PodRefused naming the servers and the refused field, one Warning", () => {
      const refused = { failedCreate: POD_SECURITY_REFUSAL };
      const seen = failing(observed(cluster()), { "demo-0": refused, "demo-1": refused, "demo-2": refused });
      const decision = rollout(decide(seen, NOW));
      const message = `0 of 3 servers ready; servers demo-0, demo-1, demo-2: ${PSA_CAUSE}`;
      expect(ready(decision)).toMatchObject({ status: "False", reason: "PodRefused", message });
      expect(decision.events).toEqual([{ type: "Warning", reason: "PodRefused", note: message }]);
    });

    it("an image the node cannot get: Ready=False ImageUnavailable naming the server, the container and the image", () => {
      const seen = failing(observed(cluster()), { "demo-2": { statuses: [ERR_IMAGE_PULL, EXPORTER_RUNNING] } });
      const decision = rollout(decide(seen, NOW));
      expect(ready(decision)).toMatchObject({ status: "False", reason: "ImageUnavailable" });
      expect(ready(decision)?.message).toMatch(
        /^2 of 3 servers ready; server demo-2: container "nats" cannot get image "nats:9.9.9": rpc error: code = NotFound/,
      );
      expect(decision.events).toEqual([
        { type: "Warning", reason: "ImageUnavailable", note: ready(decision)?.message },
      ]);
    });

    it("an OOM-killed server: Ready=False OOMKilled with its memory limit", () => {
      const decision = rollout(decide(failing(observed(cluster()), { "demo-1": { statuses: [OOM_KILLED] } }), NOW));
      expect(ready(decision)).toMatchObject({
        status: "False",
        reason: "OOMKilled",
        message: '2 of 3 servers ready; server demo-1: container "nats" OOM-killed (memory limit 4Gi)',
      });
      expect(decision.events.map((e) => [e.type, e.reason])).toEqual([["Warning", "OOMKilled"]]);
    });

    it("a crash-looping server: Ready=False CrashLooping with its last exit", () => {
      const decision = rollout(decide(failing(observed(cluster()), { "demo-0": { statuses: [CRASH_LOOPING] } }), NOW));
      expect(ready(decision)).toMatchObject({
        status: "False",
        reason: "CrashLooping",
        message: '2 of 3 servers ready; server demo-0: container "nats" crash-looping (last exit code 1, Error)',
      });
      expect(decision.events.map((e) => [e.type, e.reason])).toEqual([["Warning", "CrashLooping"]]);
    });

    it("names each cause, the lowest ordinal's reason first", () => {
      const seen = failing(observed(cluster()), {
        "demo-0": { statuses: [CRASH_LOOPING] },
        "demo-2": { failedCreate: POD_SECURITY_REFUSAL },
      });
      expect(ready(rollout(decide(seen, NOW)))).toMatchObject({
        reason: "CrashLooping",
        message: `1 of 3 servers ready; server demo-0: container "nats" crash-looping (last exit code 1, Error); server demo-2: ${PSA_CAUSE}`,
      });
    });

    it("no cause told: a server without its pod still reads as waiting, with no Warning", () => {
      const seen = failing(observed(cluster()), { "demo-0": {}, "demo-1": {}, "demo-2": {} });
      const decision = rollout(decide(seen, NOW));
      expect(ready(decision)).toMatchObject({
        status: "False",
        reason: "QuorumUnavailable",
        message: "0 of 3 servers ready",
      });
      expect(decision.events).toEqual([]);
    });

    it("records the Warning once: a delivery that finds the same reason on Ready records none", () => {
      const seen = failing(observed(previously("ImageUnavailable")), { "demo-2": { statuses: [IMAGE_PULL_BACK_OFF] } });
      const decision = rollout(decide(seen, NOW));
      expect(ready(decision)?.reason).toBe("ImageUnavailable");
      expect(decision.events).toEqual([]);
    });

    it("records it again when the reason changes", () => {
      const seen = failing(observed(previously("ImageUnavailable")), { "demo-2": { statuses: [CRASH_LOOPING] } });
      expect(rollout(decide(seen, NOW)).events.map((e) => e.reason)).toEqual(["CrashLooping"]);
    });

    it("polls as waiting does, no sooner and no later", () => {
      const waiting = rollout(decide(failing(observed(cluster()), { "demo-1": {} }), NOW));
      const crashing = rollout(decide(failing(observed(cluster()), { "demo-1": { statuses: [CRASH_LOOPING] } }), NOW));
      expect(crashing.poll).toBe(waiting.poll);
      expect(crashing.step).toEqual(waiting.step);
    });

    it("does not hold a cause against a Ready server", () => {
      const seen = { ...observed(cluster()), pods: new Map([["demo-0", podOf("demo-0", [CRASH_LOOPING])]]) };
      expect(ready(rollout(decide(seen, NOW)))).toMatchObject({ status: "True", reason: "AllServersReady" });
    });
  });
});

describe("step-rollout decision on a server whose Deleting phase was claimed", () => {
  const SINCE = new Date(NOW.getTime() - 60_000);
  const deleting = (): Cluster => ({
    ...withFinalizer(demoCluster()),
    status: {
      rollout: {
        targetRevision: planCluster({ cluster: withFinalizer(demoCluster()) }).revision,
        current: "demo-1",
        gate: { waitingFor: "Settled", since: SINCE.toISOString() },
      },
      removals: [{ name: "demo-1", phase: "Deleting", since: SINCE.toISOString() }],
    },
  });
  const claim = (made: Date, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: claimName("demo-1"),
      namespace: "nats-system",
      uid: "uid-old-claim",
      labels: serverLabels("demo", "demo-1"),
      creationTimestamp: made.toISOString(),
      ...extra,
    },
  });
  /** demo-1's StatefulSet deleted (or still there, marked for replacement), with what its claim is. */
  const seen = (stsThere: boolean, claimThere: KubeObject | undefined): Observed => {
    const base = observed(deleting(), deleting(), READY_USER);
    const statefulSets = new Map(base.statefulSets);
    const old = statefulSets.get("demo-1");
    if (stsThere && old)
      statefulSets.set("demo-1", {
        ...old,
        metadata: { ...old.metadata, annotations: { ...old.metadata.annotations, [REMOVAL_ANNOTATION]: "Requested" } },
      });
    else statefulSets.delete("demo-1");
    return {
      ...base,
      statefulSets,
      reports: base.reports.filter((r) => r.server !== "demo-1"),
      claims: new Map(claimThere ? [["demo-1", claimThere]] : []),
    };
  };
  const LONG_AGO = new Date("2026-01-01T00:00:00.000Z");

  it("deletes the StatefulSet again after a crash between the claim and its delete", () => {
    const decision = rollout(decide(seen(true, claim(LONG_AGO)), NOW));
    expect(decision.step).toEqual({ kind: "delete", server: "demo-1", surplus: false });
    expect(decision.status.removals).toEqual([{ name: "demo-1", phase: "Deleting", since: SINCE.toISOString() }]);
    expect(decision.poll).toBe(true);
  });

  it("deletes the claim left behind (by its uid) after a crash between the StatefulSet's delete and the claim's", () => {
    const decision = rollout(decide(seen(false, claim(LONG_AGO)), NOW));
    expect(decision.step).toEqual({ kind: "delete-claim", server: "demo-1", uid: "uid-old-claim", surplus: false });
    expect(decision.events).toContainEqual({
      type: "Normal",
      reason: "RolloutStep",
      note: "deleting the claim demo-1 left behind",
    });
    expect(decision.status.removals).toEqual([{ name: "demo-1", phase: "Deleting", since: SINCE.toISOString() }]);
  });

  it("waits for a claim already terminating, and finishes once both are gone", () => {
    const terminating = claim(LONG_AGO, { deletionTimestamp: NOW.toISOString() });
    const waiting = rollout(decide(seen(false, terminating), NOW));
    expect(waiting.step).toEqual({ kind: "none" });
    expect(waiting.status.conditions?.find((c) => c.type === "Progressing")?.reason).toBe("ClaimTerminating");
    const done = rollout(decide(seen(false, undefined), NOW));
    expect(done.step).toEqual({ kind: "none" });
    expect(done.status.removals).toEqual([{ name: "demo-1", phase: "Deleting", since: SINCE.toISOString() }]);
  });

  it("never deletes a claim made after the phase began (the replacement's) or one without the server's labels", () => {
    expect(rollout(decide(seen(false, claim(new Date(NOW.getTime() - 1000))), NOW)).step).toEqual({ kind: "none" });
    expect(rollout(decide(seen(false, claim(LONG_AGO, { labels: {} })), NOW)).step).toEqual({ kind: "none" });
  });
});

describe("step-rollout decision on what a removed server left behind (H10)", () => {
  const SINCE = new Date(NOW.getTime() - 60_000);
  const LONG_AGO = "2026-01-01T00:00:00.000Z";
  /** Scaled from three servers to two: demo-2's StatefulSet is deleted, its phase still Deleting. */
  const scaledDown = (status: Cluster["status"] = {}): Cluster => ({
    ...withFinalizer(demoCluster({ replicas: 2 })),
    status: { removals: [{ name: "demo-2", phase: "Deleting", since: SINCE.toISOString() }], ...status },
  });
  const someoneElses = (kind: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
    apiVersion: "v1",
    kind,
    metadata: { name, namespace: "nats-system", uid: `uid-${name}`, labels, creationTimestamp: LONG_AGO },
  });
  const claimWithoutLabels = someoneElses("PersistentVolumeClaim", claimName("demo-2"));
  const uncontrolledConfigMap = someoneElses("ConfigMap", "demo-2-config");
  const seen = (
    cluster: Cluster,
    found: Partial<Pick<Observed, "claims" | "deletingConfigMaps" | "leftovers">>,
    running: Cluster = withFinalizer(demoCluster()),
  ) => {
    const base = observed(cluster, running, READY_USER);
    const statefulSets = new Map(base.statefulSets);
    statefulSets.delete("demo-2");
    return { ...base, statefulSets, reports: base.reports.filter((r) => r.server !== "demo-2"), ...found };
  };
  const readyOf = (decision: RolloutStepDecision) => decision.status.conditions?.find((c) => c.type === "Ready");
  const LEFT = [
    { kind: "ConfigMap", name: "demo-2-config", server: "demo-2" },
    { kind: "PersistentVolumeClaim", name: claimName("demo-2"), server: "demo-2" },
  ] as const;

  it("records a claim without the server's labels and a ConfigMap it does not control, and reads Ready=False ReconcileFailed naming them", () => {
    const decision = rollout(
      decide(
        seen(scaledDown(), {
          claims: new Map([["demo-2", claimWithoutLabels]]),
          deletingConfigMaps: new Map([["demo-2", uncontrolledConfigMap]]),
        }),
        NOW,
      ),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.status.leftovers).toEqual(LEFT);
    expect(readyOf(decision)).toMatchObject({ status: "False", reason: "ReconcileFailed" });
    expect(readyOf(decision)?.message).toContain(
      `ConfigMap demo-2-config (of demo-2), PersistentVolumeClaim ${claimName("demo-2")} (of demo-2)`,
    );
    expect(decision.events.filter((e) => e.reason === "ReconcileFailed")).toEqual([
      expect.objectContaining({ type: "Warning", note: expect.stringContaining("ConfigMap demo-2-config") }),
    ]);
  });

  it("keeps them once the removal is over, tells them once, and does not poll for a person's cleanup", () => {
    // Three servers at rest on their render; demo-3 went in an earlier scale-down and left two objects.
    const of3 = [
      { kind: "ConfigMap", name: "demo-3-config", server: "demo-3" } as const,
      { kind: "PersistentVolumeClaim", name: claimName("demo-3"), server: "demo-3" } as const,
    ];
    const cluster: Cluster = { ...withFinalizer(demoCluster()), status: { leftovers: of3 } };
    const base = observed(cluster, cluster, READY_USER);
    const decision = rollout(
      decide(
        {
          ...base,
          leftovers: new Map([
            ["ConfigMap/demo-3-config", someoneElses("ConfigMap", "demo-3-config")],
            [
              `PersistentVolumeClaim/${claimName("demo-3")}`,
              someoneElses("PersistentVolumeClaim", claimName("demo-3")),
            ],
          ]),
        },
        NOW,
      ),
    );
    expect(decision.status.leftovers).toEqual(of3);
    expect(readyOf(decision)?.reason).toBe("ReconcileFailed");
    expect(decision.events.filter((e) => e.reason === "ReconcileFailed")).toEqual([]);
    expect(decision.poll).toBe(false);
  });

  it("clears them as they are deleted: Ready=True once none is left", () => {
    const cluster = { ...scaledDown(), status: { leftovers: [...LEFT] } };
    const one = rollout(
      decide(seen(cluster, { leftovers: new Map([[`ConfigMap/demo-2-config`, uncontrolledConfigMap]]) }), NOW),
    );
    expect(one.status.leftovers).toEqual([LEFT[0]]);
    const none = rollout(decide(seen(cluster, { leftovers: new Map() }), NOW));
    expect(none.status.leftovers).toBeUndefined();
    expect(readyOf(none)).toMatchObject({ status: "True", reason: "AllServersReady" });
  });

  it("counts nothing it deletes itself: the server's own claim and a ConfigMap it controls", () => {
    const own = someoneElses("PersistentVolumeClaim", claimName("demo-2"), serverLabels("demo", "demo-2"));
    const ours = {
      ...uncontrolledConfigMap,
      metadata: {
        ...uncontrolledConfigMap.metadata,
        ownerReferences: [
          {
            apiVersion: "cluster.nats-operator.io/v1beta1",
            kind: "NatsCluster",
            name: "demo",
            uid: "uid-demo",
            controller: true,
          },
        ],
      },
    };
    const decision = rollout(
      decide(
        seen(scaledDown(), { claims: new Map([["demo-2", own]]), deletingConfigMaps: new Map([["demo-2", ours]]) }),
        NOW,
      ),
    );
    expect(decision.status.leftovers).toBeUndefined();
    expect(decision.step).toMatchObject({ kind: "delete-claim", server: "demo-2" });
  });

  it("drops a leftover whose server is planned again: its name is rendered, and render-cluster tells of it", () => {
    const cluster: Cluster = { ...withFinalizer(demoCluster()), status: { leftovers: [...LEFT] } };
    const base = observed(cluster, cluster, READY_USER);
    const decision = rollout(
      decide({ ...base, leftovers: new Map([[`ConfigMap/demo-2-config`, uncontrolledConfigMap]]) }, NOW),
    );
    expect(decision.status.leftovers).toBeUndefined();
  });
});
