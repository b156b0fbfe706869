import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { reportsOf } from "../../../test/fixtures/cluster/jsz.ts";
import { type Cluster, type LeafRemotes, planCluster, type ServerConnectivity } from "../../cluster/index.ts";
import { withConnectivity } from "./connectivity.ts";
import { decide } from "../nats-cluster/decide.ts";
import type { RolloutStepDecision, Observed, StatefulSet } from "../nats-cluster/types.ts";
import { CLUSTER_REASONS } from "../../../shared/api/index.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const JETSTREAM_DATA = "cluster.nats-operator.io/jetstream-data";

const gateway = {
  discovery: "Explicit" as const,
  remotes: [
    { name: "demo", url: "tls://demo.example:7222" },
    { name: "south", url: "tls://south.example:7222" },
  ],
};
const north = (extra: Partial<Cluster["spec"]> = {}) =>
  demoCluster(
    { gateway: { ...gateway, tls: { secretRef: { name: "gw" } } }, ...extra },
    { finalizers: [JETSTREAM_DATA] },
  );

const dialing = (servers: string[]): ServerConnectivity[] =>
  servers.map((server) => ({
    server,
    gatewayz: { outbound_gateways: { south: { connection: {} } }, inbound_gateways: { south: [{ connection: {} }] } },
  }));

/** `cluster` running its own render, Ready and Settled, its servers answering `connectivity`. */
function observed(
  cluster: Cluster,
  connectivity?: ServerConnectivity[],
  hold?: Observed["hold"],
  leafRemotes?: LeafRemotes,
): Observed {
  const plan = planCluster({ cluster, ...(leafRemotes ? { leafRemotes: leafRemotes.ready } : {}) });
  return {
    cluster,
    plan,
    certificatesReady: true,
    ...(hold ? { hold } : {}),
    ...(leafRemotes ? { leafRemotes } : {}),
    ...(connectivity ? { connectivity } : {}),
    statefulSets: new Map(
      plan.servers.map((s): [string, StatefulSet] => [
        s.name,
        {
          ...(s.statefulSet as StatefulSet),
          metadata: { ...s.statefulSet.metadata, generation: 1, resourceVersion: "7" },
          status: { observedGeneration: 1, readyReplicas: 1, updatedReplicas: 1 },
        },
      ]),
    ),
    configMaps: new Map(plan.servers.map((s) => [s.configMap.metadata.name, s.configMap])),
    foreign: [],
    pods: new Map(),
    failedCreates: new Map(),
    reports: reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", revision: plan.revision }),
    systemUser: { kind: "none" },
  };
}

const rollout = (decision: ReturnType<typeof decide>): RolloutStepDecision => {
  if (decision.kind !== "rollout") throw new Error(`expected a rollout decision, got ${decision.kind}`);
  return decision;
};
const conditionOf = (decision: RolloutStepDecision, type: string) =>
  decision.status.conditions?.find((c) => c.type === type);

describe("step-rollout and the supercluster (C50)", () => {
  it("writes status.gateways and GatewaysConnected from what the servers answer, and once connected only watches the links", () => {
    const decision = rollout(decide(observed(north(), dialing(["demo-0", "demo-1", "demo-2"])), NOW));
    expect(decision.status.gateways).toEqual([{ name: "south", connected: true, inbound: 3, outbound: 3 }]);
    expect(conditionOf(decision, "GatewaysConnected")).toMatchObject({
      status: "True",
      reason: "AllMembersReachable",
      message: "1 of 1 remote members connected",
      observedGeneration: 1,
    });
    // No rollout tick; the slower watch of a cluster with links, since no event says one went down.
    expect(decision.poll).toBe(false);
    expect(decision.watchLinks).toBe(true);
  });

  it("keeps its tick while a member is unreachable: no event says when it comes up", () => {
    const decision = rollout(decide(observed(north(), dialing(["demo-0"])), NOW));
    expect(conditionOf(decision, "GatewaysConnected")).toMatchObject({ status: "False", reason: "MembersUnreachable" });
    expect(decision.poll).toBe(true);
  });

  it("does not watch the links of a held cluster: its servers are not what was asked for", () => {
    const hold = { reason: CLUSTER_REASONS.GatewayWithoutTLS, message: "spec.gateway has no tls" };
    const decision = rollout(decide(observed(north({ gateway }), [], hold), NOW));
    expect(decision.watchLinks).toBe(false);
  });

  it("holds a gateway in clear: Ready and Progressing False, GatewayWithoutTLS, no step", () => {
    const cluster = north({ gateway });
    const hold = { reason: CLUSTER_REASONS.GatewayWithoutTLS, message: "spec.gateway has no tls" };
    const decision = rollout(decide(observed(cluster, [], hold), NOW));
    expect(decision.step).toEqual({ kind: "none" });
    expect(conditionOf(decision, "Ready")).toMatchObject({ status: "False", reason: "GatewayWithoutTLS" });
    expect(conditionOf(decision, "Progressing")).toMatchObject({ status: "False", reason: "GatewayWithoutTLS" });
  });

  it("drops the gateway status and condition once the spec has no gateway", () => {
    const cluster = demoCluster({}, { finalizers: [JETSTREAM_DATA] });
    const status = {
      gateways: [{ name: "south", connected: true, inbound: 1, outbound: 1 }],
      conditions: [
        {
          type: "GatewaysConnected",
          status: "True" as const,
          reason: "AllMembersReachable",
          message: "",
          lastTransitionTime: "",
        },
      ],
    };
    const next = withConnectivity(status, cluster, undefined, undefined, NOW);
    expect(next.status.gateways).toBeUndefined();
    expect(next.status.conditions).toEqual([]);
    expect(next.settled).toBe(true);
  });
});

describe("step-rollout and a leaf's link to its hub (story 10)", () => {
  const hub = {
    connectionNamespace: "nats-system",
    connectionName: "hub",
    urls: ["nats-leaf://hub.example:7422"],
  };
  const edge = () =>
    demoCluster(
      {
        leafRemotes: [{ connectionRef: { name: "hub" } }],
        jetstream: {
          domain: "edge",
          volumeClaimTemplate: { spec: { storageClassName: "standard", resources: { requests: { storage: "20Gi" } } } },
        },
      },
      { finalizers: [JETSTREAM_DATA] },
    );
  const linked = (servers: string[]): ServerConnectivity[] =>
    ["demo-0", "demo-1", "demo-2"].map((server) => ({
      server,
      leafz: { leafs: servers.includes(server) ? [{ account: "$G", is_spoke: true }] : [] },
    }));
  const decideEdge = (connectivity: ServerConnectivity[]) =>
    rollout(decide(observed(edge(), connectivity, undefined, { ready: [hub], refused: [] }), NOW));

  it("reads every server linked, and keeps watching the link at rest", () => {
    const decision = decideEdge(linked(["demo-0", "demo-1", "demo-2"]));
    expect(conditionOf(decision, "LeafnodesConnected")).toMatchObject({
      status: "True",
      reason: "AllRemotesConnected",
      message: "3 of 3 servers connected to 1 remote",
    });
    expect(decision).toMatchObject({ poll: false, watchLinks: true });
  });

  it("reads the link lost when no server holds it (the hub gone), stays Ready, and looks again soon", () => {
    const decision = decideEdge(linked([]));
    expect(conditionOf(decision, "LeafnodesConnected")).toMatchObject({
      status: "False",
      reason: "RemotesDisconnected",
      message: "not connected: nats-system/hub (0 of 3 servers)",
    });
    expect(decision.status.leafRemotes).toEqual([
      { connectionNamespace: "nats-system", connectionName: "hub", connected: 0 },
    ]);
    expect(conditionOf(decision, "Ready")).toMatchObject({ status: "True", reason: "AllServersReady" });
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.poll).toBe(true);
  });

  it("watches no link of a cluster without gateway or leaf remotes", () => {
    const decision = rollout(decide(observed(demoCluster({}, { finalizers: [JETSTREAM_DATA] })), NOW));
    expect(decision).toMatchObject({ poll: false, watchLinks: false });
  });
});
