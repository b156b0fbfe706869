import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import type { Attributes } from "@opentelemetry/api";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createKube } from "../kube/client.ts";
import { KubeRequestError } from "../kube/errors.ts";
import type { KubeObject } from "../kube/object.ts";
import { writeStatus } from "../kube/status.ts";
import type { NatsClusterStatus } from "../api/cluster/nats-cluster-status.ts";
import { registerStatusGauges, resetStatusGauges, STATUS_GAUGES } from "./status-gauges.ts";

/** Collects on demand, as an exporter's reader would at export time. */
class InMemoryReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

// A fresh provider per test: the SDK keeps every series it has seen, as an exporter's would.
let reader: InMemoryReader;
let provider: MeterProvider;
beforeEach(() => {
  resetStatusGauges();
  reader = new InMemoryReader();
  provider = new MeterProvider({ readers: [reader] });
  registerStatusGauges(provider.getMeter("test"));
});
afterEach(() => provider.shutdown());

interface Reading {
  value: number;
  attributes: Attributes;
}

/** The points of one instrument at the next collection. */
async function readings(name: string): Promise<Reading[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((p) => ({ value: p.value as number, attributes: p.attributes }));
}

const at = "2026-01-01T00:00:00Z";
const condition = (type: string, status: "True" | "False" | "Unknown", reason: string) => ({
  type,
  status,
  reason,
  message: "",
  lastTransitionTime: at,
});
const stream = {
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name: "orders", namespace: "team-a", generation: 1 },
};
const cluster = {
  apiVersion: "cluster.nats-operator.io/v1beta1",
  kind: "NatsCluster",
  metadata: { name: "demo", namespace: "team-a", generation: 1 },
};
type ClusterObject = KubeObject & { status?: NatsClusterStatus };
const streamIdentity = { kind: "NatsStream", namespace: "team-a", name: "orders" };
const clusterIdentity = { kind: "NatsCluster", namespace: "team-a", name: "demo" };

describe("nats_operator.condition", () => {
  it("reads 1 for a True condition and 0 for False or Unknown, with the object, type and reason", async () => {
    const kube = memoryKube([stream]);
    const conditions = [
      condition("Ready", "True", "Serving"),
      condition("Synced", "False", "DriftCorrected"),
      condition("Adopted", "Unknown", "NotFound"),
    ];
    await writeStatus(kube, stream, { conditions }, "m");
    expect(await readings(STATUS_GAUGES.condition)).toEqual([
      { value: 1, attributes: { ...streamIdentity, type: "Ready", reason: "Serving" } },
      { value: 0, attributes: { ...streamIdentity, type: "Synced", reason: "DriftCorrected" } },
      { value: 0, attributes: { ...streamIdentity, type: "Adopted", reason: "NotFound" } },
    ]);
  });

  it("follows a condition to its new reason, setting the old reason's series to 0", async () => {
    const kube = memoryKube([stream]);
    await writeStatus(kube, stream, { conditions: [condition("Ready", "True", "Serving")] }, "m");
    expect(await readings(STATUS_GAUGES.condition)).toEqual([
      { value: 1, attributes: { ...streamIdentity, type: "Ready", reason: "Serving" } },
    ]);
    await writeStatus(kube, stream, { conditions: [condition("Ready", "False", "ObserveFailed")] }, "m");
    expect(await readings(STATUS_GAUGES.condition)).toEqual([
      { value: 0, attributes: { ...streamIdentity, type: "Ready", reason: "Serving" } },
      { value: 0, attributes: { ...streamIdentity, type: "Ready", reason: "ObserveFailed" } },
    ]);
  });

  it("sets a removed condition's series to 0", async () => {
    const kube = memoryKube([stream]);
    await writeStatus(kube, stream, { conditions: [condition("Stalled", "True", "RequestRefused")] }, "m");
    await writeStatus(kube, stream, { conditions: [] }, "m");
    expect(await readings(STATUS_GAUGES.condition)).toEqual([
      { value: 0, attributes: { ...streamIdentity, type: "Stalled", reason: "RequestRefused" } },
    ]);
  });

  it("reads the status an object already shows when the write is skipped as unchanged", async () => {
    const transport = scriptedTransport();
    const shown = { ...stream, status: { conditions: [condition("Ready", "True", "Serving")] } };
    expect((await writeStatus(createKube(transport), shown, shown.status, "m")).kind).toBe("unchanged");
    expect(await readings(STATUS_GAUGES.condition)).toEqual([
      { value: 1, attributes: { ...streamIdentity, type: "Ready", reason: "Serving" } },
    ]);
  });

  it("takes nothing from a claim lost to a newer write", async () => {
    const path = "/apis/jetstream.nats-operator.io/v1beta1/namespaces/team-a/natsstreams/orders/status";
    const transport = scriptedTransport({ [`PATCH ${path}`]: [new KubeRequestError(409, "Conflict", "modified")] });
    const read = { ...stream, metadata: { ...stream.metadata, resourceVersion: "7" } };
    const conditions = [condition("Ready", "True", "Serving")];
    expect((await writeStatus(createKube(transport), read, { conditions }, "m", { guarded: true })).kind).toBe(
      "conflict",
    );
    expect(await readings(STATUS_GAUGES.condition)).toEqual([]);
  });

  it("keeps the conditions a write of other fields says nothing about", async () => {
    const seeded: ClusterObject = { ...cluster, status: {} };
    const kube = memoryKube([seeded]);
    await writeStatus(kube, cluster, { conditions: [condition("Ready", "True", "AllServersReady")] }, "m");
    const current = await kube.get<ClusterObject>({ ...cluster, ...cluster.metadata });
    await writeStatus(kube, current ?? cluster, { replicas: 3 }, "render", { owned: () => ({}) });
    expect(await readings(STATUS_GAUGES.condition)).toEqual([
      { value: 1, attributes: { ...clusterIdentity, type: "Ready", reason: "AllServersReady" } },
    ]);
  });
});

describe("nats_operator.rollout gauges", () => {
  it("read a closed gate with what it waits for, and the servers still to update", async () => {
    const kube = memoryKube([cluster]);
    const rollout = {
      targetRevision: "abc",
      updated: ["demo-0"],
      current: "demo-1",
      pending: ["demo-2", "demo-3"],
      gate: { waitingFor: "Settled", since: at },
    };
    await writeStatus(kube, cluster, { rollout }, "m");
    expect(await readings(STATUS_GAUGES.rolloutGate)).toEqual([
      { value: 1, attributes: { ...clusterIdentity, waiting_for: "Settled" } },
    ]);
    expect(await readings(STATUS_GAUGES.rolloutPendingServers)).toEqual([{ value: 2, attributes: clusterIdentity }]);
  });

  it("read an open gate and nothing pending once the status shows no rollout", async () => {
    const kube = memoryKube([cluster]);
    await writeStatus(kube, cluster, { rollout: { pending: ["demo-2"], gate: { waitingFor: "Ready" } } }, "m");
    const current = await kube.get<ClusterObject>({ ...cluster, ...cluster.metadata });
    await writeStatus(kube, current ?? cluster, { conditions: [] }, "m", { whole: true });
    expect(await readings(STATUS_GAUGES.rolloutGate)).toEqual([
      { value: 0, attributes: { ...clusterIdentity, waiting_for: "Ready" } },
      { value: 0, attributes: { ...clusterIdentity, waiting_for: "" } },
    ]);
    expect(await readings(STATUS_GAUGES.rolloutPendingServers)).toEqual([{ value: 0, attributes: clusterIdentity }]);
  });

  it("are not reported for kinds other than NatsCluster", async () => {
    await writeStatus(memoryKube([stream]), stream, { conditions: [] }, "m");
    expect(await readings(STATUS_GAUGES.rolloutGate)).toEqual([]);
  });
});

describe("nats_operator.evacuation gauges", () => {
  const evacuation = {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsClusterEvacuation",
    metadata: { name: "retire-east", namespace: "nats-system", generation: 1 },
  };
  const identity = { kind: "NatsClusterEvacuation", namespace: "nats-system", name: "retire-east" };

  it("read the streams still to leave and the moved streams whose config names the source", async () => {
    const kube = memoryKube([evacuation]);
    await writeStatus(kube, evacuation, { remaining: 5, stalePlacement: [{ account: "APP", name: "OLD" }] }, "m");
    expect(await readings(STATUS_GAUGES.evacuationRemaining)).toEqual([{ value: 5, attributes: identity }]);
    expect(await readings(STATUS_GAUGES.evacuationStalePlacements)).toEqual([{ value: 1, attributes: identity }]);
  });

  it("are not reported for other kinds", async () => {
    await writeStatus(memoryKube([stream]), stream, { conditions: [] }, "m");
    expect(await readings(STATUS_GAUGES.evacuationRemaining)).toEqual([]);
  });
});

describe("nats_operator.balancer gauges", () => {
  const balancer = {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsSystemBalancer",
    metadata: { name: "even", namespace: "nats-system", generation: 1 },
  };
  const identity = { kind: "NatsSystemBalancer", namespace: "nats-system", name: "even" };

  it("read the leader skew and the pending moves by kind", async () => {
    const kube = memoryKube([balancer]);
    const move = { kind: "Leader", account: "APP", stream: "S1", consumer: "", from: "js-0", to: "js-1", time: at };
    await writeStatus(kube, balancer, { skew: { leaders: 4, replicas: 0 }, pending: [move] }, "m");
    expect(await readings(STATUS_GAUGES.balancerLeaderSkew)).toEqual([
      { value: 4, attributes: { ...identity, pool: "" } },
    ]);
    expect(await readings(STATUS_GAUGES.balancerPendingMoves)).toEqual([
      { value: 1, attributes: { ...identity, move_kind: "Leader" } },
      { value: 0, attributes: { ...identity, move_kind: "Placement" } },
    ]);
  });

  it("read a NatsBalancer's leader skew per pool, a pool gone reading 0", async () => {
    const account = { ...balancer, kind: "NatsBalancer", metadata: { ...balancer.metadata, name: "orders" } };
    const who = { kind: "NatsBalancer", namespace: "nats-system", name: "orders" };
    const kube = memoryKube([account]);
    const pools = [
      { name: "hot", streams: 6, leaderSkew: 1 },
      { name: "(default)", streams: 2, leaderSkew: 2 },
    ];
    await writeStatus(kube, account, { pools }, "m");
    await writeStatus(kube, account, { pools: [{ name: "hot", streams: 6, leaderSkew: 0 }] }, "m");
    expect(await readings(STATUS_GAUGES.balancerLeaderSkew)).toEqual(
      expect.arrayContaining([
        { value: 0, attributes: { ...who, pool: "hot" } },
        { value: 0, attributes: { ...who, pool: "(default)" } },
      ]),
    );
  });
});

describe("nats_operator.account.jwt_expiry", () => {
  const account = {
    apiVersion: "auth.nats-operator.io/v1beta1",
    kind: "NatsAccount",
    metadata: { name: "app", namespace: "team-a", generation: 1 },
  };
  const accountIdentity = { kind: "NatsAccount", namespace: "team-a", name: "app" };
  /** A JWT carrying only the claims the gauge reads. */
  const jwtWith = (claims: Record<string, unknown>) =>
    `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.c2ln`;

  it("reads the seconds until the account's JWT expires", async () => {
    const kube = memoryKube([account]);
    const exp = Math.floor(Date.now() / 1000) + 48 * 3600;
    await writeStatus(kube, account, { jwt: jwtWith({ iat: exp - 48 * 3600, exp }) }, "m");
    const [point, ...rest] = await readings(STATUS_GAUGES.accountJwtExpiry);
    expect(rest).toEqual([]);
    expect(point?.attributes).toEqual(accountIdentity);
    expect(point?.value).toBeGreaterThan(48 * 3600 - 10);
    expect(point?.value).toBeLessThanOrEqual(48 * 3600);
  });

  it("is absent for an account whose JWT never expires", async () => {
    const kube = memoryKube([account]);
    await writeStatus(kube, account, { jwt: jwtWith({ iat: 1 }) }, "m");
    expect(await readings(STATUS_GAUGES.accountJwtExpiry)).toEqual([]);
  });
});
