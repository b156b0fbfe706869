import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../test/fixtures/cluster/clusters.ts";
import { type Cluster, routeTlsPlan, type RouteSecrets } from "../cluster/index.ts";
import { decide } from "./decide.ts";
import type { RenderableCluster } from "./observe.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const gateway = {
  discovery: "Explicit" as const,
  remotes: [
    { name: "demo", url: "tls://demo.example:7222" },
    { name: "south", url: "tls://south.example:7222" },
  ],
};

/** Route TLS named by the user (no issuing), so only the listeners decide what is written. */
function observed(cluster: Cluster, extra: Partial<RenderableCluster> = {}): RenderableCluster {
  const named: Cluster = { ...cluster, spec: { ...cluster.spec, routes: { tls: { secretRef: { name: "routes" } } } } };
  const routes: RouteSecrets = {
    plan: routeTlsPlan(named),
    mounted: { apiVersion: "v1", kind: "Secret", metadata: { name: "routes" }, data: routeTlsData() },
  };
  return {
    kind: "render",
    cluster: named,
    routes,
    listeners: {},
    leafRemotes: { ready: [], refused: [] },
    certificates: { kind: "known", byName: new Map(), issuers: new Map() },
    rendered: { shared: new Map(), servers: new Map() },
    ...extra,
  };
}

const writes = (decision: ReturnType<typeof decide>) =>
  decision.writes.map((w) => `${w.kind} ${w.object.kind} ${w.object.metadata.name}`);

describe("render-cluster and the gateway and leafnode listeners", () => {
  it("renders nothing for a gateway without TLS, and records GatewayWithoutTLS with a Warning event", () => {
    const decision = decide(observed(demoCluster({ gateway })), NOW);
    expect(decision.writes).toEqual([]);
    expect(decision.status).toBeUndefined();
    expect(decision.failure).toMatchObject({ kind: "set", failure: { reason: "GatewayWithoutTLS" } });
    expect(decision.events).toEqual([
      {
        type: "Warning",
        reason: "GatewayWithoutTLS",
        note: expect.stringContaining("gateway.tls.secretRef") as unknown,
      },
    ]);
  });

  it("renders the gateway in clear when the operator runs with allow-gateway-without-tls", () => {
    const decision = decide(observed(demoCluster({ gateway })), NOW, { allowGatewayWithoutTls: true });
    expect(writes(decision)).toContain("create StatefulSet demo-0");
    expect(decision.failure).toBeUndefined();
  });

  it("creates no server until the gateway Secret holds ca.crt, writing the shared objects meanwhile", () => {
    const cluster = demoCluster({ gateway: { ...gateway, tls: { secretRef: { name: "gw" } } } });
    const { "ca.crt": _ca, ...withoutCa } = routeTlsData();
    const waiting = decide(observed(cluster, { listeners: { gateway: withoutCa } }), NOW);
    expect(writes(waiting)).not.toContain("create StatefulSet demo-0");
    expect(writes(waiting)).toContain("apply Service demo-headless");
    expect(waiting.summary).toContain("Secret gw does not hold tls.crt, tls.key and ca.crt yet");
    // No event tells of Secrets: the render looks again.
    expect(waiting.schedules.map((s) => [s.schedule.name, s.poll])).toContainEqual([
      "demo-render-poll",
      { every: "10s" },
    ]);
    const ready = decide(observed(cluster, { listeners: { gateway: routeTlsData() } }), NOW);
    expect(writes(ready)).toContain("create StatefulSet demo-0");
  });

  it("deletes a listener Service of its own that the spec no longer asks for, and leaves someone else's", () => {
    const owned = (uid: string) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "demo-gateway",
        ownerReferences: [{ apiVersion: "x", kind: "NatsCluster", name: "demo", uid, controller: true }],
      },
    });
    const shared = (uid: string) => new Map([["Service/demo-gateway", owned(uid)]]);
    const mine = decide(observed(demoCluster(), { rendered: { shared: shared("uid-demo"), servers: new Map() } }), NOW);
    expect(writes(mine)).toContain("delete Service demo-gateway");
    const theirs = decide(observed(demoCluster(), { rendered: { shared: shared("other"), servers: new Map() } }), NOW);
    expect(writes(theirs)).not.toContain("delete Service demo-gateway");
  });

  it("renders the remotes it could read and polls for one it could not", () => {
    const cluster = demoCluster({
      leafRemotes: [{ connectionRef: { name: "hub" } }, { connectionRef: { name: "gone" } }],
    });
    const decision = decide(
      observed(cluster, {
        leafRemotes: {
          ready: [{ connectionNamespace: "nats-system", connectionName: "hub", urls: ["nats-leaf://hub:7422"] }],
          refused: [
            {
              connectionNamespace: "nats-system",
              connectionName: "gone",
              reason: "LeafRemoteNotFound",
              message: "NatsConnection nats-system/gone does not exist",
            },
          ],
        },
      }),
      NOW,
    );
    expect(writes(decision)).toContain("apply Secret demo-leaf-remotes");
    expect(decision.summary).toContain("leaf remotes left out: LeafRemoteNotFound");
    expect(decision.schedules.map((s) => [s.schedule.name, s.poll])).toContainEqual([
      "demo-render-poll",
      { every: "30s" },
    ]);
  });
});
