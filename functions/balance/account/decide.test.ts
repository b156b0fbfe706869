import { describe, expect, it } from "@jest/globals";
import type { NatsBalancer, NatsBalancerStatus } from "./resource.ts";
import { type AccountDecision, decideAccount } from "./decide.ts";
import type { AccountObserved } from "./observe.ts";
import type { NatsSystemBalancer } from "../system/resource.ts";
import type { MoveLease } from "../pass/lease.ts";
import type { PoolResource } from "./pools.ts";
import type { Group } from "../leaders/snapshot.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const secondsAgo = (n: number) => new Date(NOW.getTime() - n * 1000).toISOString();
const SERVERS = ["js-0", "js-1", "js-2"];
const LEASE: MoveLease = { namespace: "nats-system", name: "nats-balance-js-0", resourceVersion: "7" };

/** An R3 stream of account APP led by `leader`, every member current. */
const stream = (name: string, leader: string, over: Partial<Group> = {}): Group => ({
  kind: "stream",
  account: "APP",
  stream: name,
  leader,
  members: SERVERS.map((s) => ({ name: s, current: true, offline: false, lag: 0 })),
  ...over,
});
const ledBy = (leader: string, names: readonly string[]) => names.map((n) => stream(n, leader));
const resource = (name: string, labels: Record<string, string>): PoolResource => ({
  describe: `NatsStream apps/${name}`,
  stream: name,
  labels,
});

function balancer(spec: Partial<NatsBalancer["spec"]> = {}, status?: NatsBalancerStatus): NatsBalancer {
  return {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsBalancer",
    metadata: { name: "orders", namespace: "apps", uid: "uid-orders", generation: 2 },
    spec: { connectionRef: { name: "app" }, interval: "1m", ...spec },
    ...(status ? { status } : {}),
  };
}

function observed(groups: Group[], over: Partial<AccountObserved> = {}, lease: MoveLease = LEASE): AccountObserved {
  return {
    balancer: balancer(),
    resources: [],
    systemBalancers: [],
    clusters: [],
    nats: { kind: "read", account: "APP", cluster: "js", roster: SERVERS, groups, lease, evacuating: [] },
    ...over,
  };
}

const said = (d: AccountDecision, type: string) => {
  const c = d.status.conditions?.find((x) => x.type === type);
  return c ? `${c.status}/${c.reason}` : "absent";
};
const HOT = ["H1", "H2", "H3", "H4", "H5", "H6"];
const pooled = (b = balancer({ pools: [{ name: "hot", selector: { matchLabels: { tier: "hot" } } }] })) => ({
  balancer: b,
  resources: HOT.map((n) => resource(n, { tier: "hot" })),
});

describe("NatsBalancer pass", () => {
  it("moves one leader of its pool off the server leading all six, on the account's own API", () => {
    const d = decideAccount(observed(ledBy("js-0", HOT), pooled()), NOW);
    expect(d.move).toEqual({ target: { account: "APP", stream: "H1" }, from: "js-0", to: "js-1", ownAccount: "APP" });
    expect(d.status.lastMove).toEqual({
      kind: "Leader",
      account: "APP",
      stream: "H1",
      consumer: "",
      from: "js-0",
      to: "js-1",
      time: NOW.toISOString(),
    });
    expect(d.status.pools).toEqual([{ name: "hot", streams: 6, leaderSkew: 6 }]);
    expect(d.events).toEqual([
      { type: "Normal", reason: "MoveStarted", note: "moving the leader of stream H1 in pool hot from js-0 to js-1" },
    ]);
    expect(d.lease?.op).toEqual({ kind: "take", holder: "NatsBalancer apps/orders", at: NOW });
    expect(d.poll).toEqual({ every: "5s" });
    expect([said(d, "Ready"), said(d, "Holding"), said(d, "Overlapping")]).toEqual([
      "True/Balancing",
      "False/Settled",
      "False/PoolsDisjoint",
    ]);
  });

  it("puts streams no pool selects, and streams without a resource, in (default)", () => {
    const groups = [...ledBy("js-1", HOT), stream("COLD", "js-0"), stream("LOOSE", "js-0")];
    const d = decideAccount(
      observed(groups, { ...pooled(), resources: [...pooled().resources, resource("COLD", { tier: "cold" })] }),
      NOW,
    );
    expect(d.status.pools).toEqual([
      { name: "hot", streams: 6, leaderSkew: 6 },
      { name: "(default)", streams: 2, leaderSkew: 2 },
    ]);
    // The first pool with a move gets it.
    expect(d.move).toMatchObject({ target: { stream: "H1" }, from: "js-1" });
  });

  it("balances the whole account as (default) when no pool is declared; a one-stream pool has skew 1", () => {
    const d = decideAccount(observed([stream("ONLY", "js-2")]), NOW);
    expect(d.status.pools).toEqual([{ name: "(default)", streams: 1, leaderSkew: 1 }]);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("False/Settled");
    expect(d.lease).toBeUndefined();
  });

  it("refuses every move while pools overlap, saying which stream, with one Warning", () => {
    const b = balancer({
      pools: [
        { name: "hot", selector: { matchLabels: { tier: "hot" } } },
        { name: "all", selector: {} },
      ],
    });
    const d = decideAccount(observed(ledBy("js-0", HOT), pooled(b)), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Overlapping")).toBe("True/PoolsOverlap");
    expect(said(d, "Holding")).toBe("True/PoolsOverlap");
    expect(d.status.conditions?.find((c) => c.type === "Overlapping")?.message).toContain(
      "stream H1 (NatsStream apps/H1) is selected by pools hot, all",
    );
    expect(d.events.map((e) => `${e.type}/${e.reason}`)).toEqual(["Warning/PoolsOverlap"]);
    const again = decideAccount(observed(ledBy("js-0", HOT), pooled(balancer(b.spec, d.status))), NOW);
    expect(again.events).toEqual([]);
  });

  it("yields while a NatsSystemBalancer has a move pending on one of the account's streams", () => {
    const system = {
      apiVersion: "jetstream.nats-operator.io/v1beta1",
      kind: "NatsSystemBalancer",
      metadata: { name: "even", namespace: "nats-system" },
      spec: { connectionRef: { name: "system" } },
      status: { pending: [{ kind: "Leader", account: "APP", stream: "H4", from: "js-0", to: "js-2" }] },
    } as NatsSystemBalancer;
    const d = decideAccount(observed(ledBy("js-0", HOT), { ...pooled(), systemBalancers: [system] }), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/YieldingToSystemBalancer");
    expect(d.summary).toBe("NatsSystemBalancer nats-system/even has a move pending on stream H4");
  });

  it("moves nothing while another balancer holds the NATS cluster's move lease, and leaves the lease alone", () => {
    const held = { ...LEASE, holder: "NatsSystemBalancer nats-system/even", renewTime: secondsAgo(20) };
    const d = decideAccount(observed(ledBy("js-0", HOT), pooled(), held), NOW);
    expect(d.move).toBeUndefined();
    expect(d.lease).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/MoveLeaseHeld");
  });

  it("takes a lapsed lease of another holder", () => {
    const lapsed = { ...LEASE, holder: "NatsBalancer apps/other", renewTime: secondsAgo(61) };
    const d = decideAccount(observed(ledBy("js-0", HOT), pooled(), lapsed), NOW);
    expect(d.move).toBeDefined();
    expect(d.lease?.op.kind).toBe("take");
  });

  it("holds its own lease while its last move settles, then lets it go", () => {
    const mine = { ...LEASE, holder: "NatsBalancer apps/orders", renewTime: secondsAgo(5) };
    const last = {
      kind: "Leader" as const,
      account: "APP",
      stream: "H1",
      from: "js-0",
      to: "js-1",
      time: secondsAgo(5),
    };
    const settling = [
      stream("H1", "js-1", {
        members: SERVERS.map((s) => ({ name: s, current: s !== "js-0", offline: false, lag: 3 })),
      }),
    ];
    const b = balancer({}, { lastMove: last });
    const waiting = decideAccount(observed(settling, { balancer: b }, mine), NOW);
    expect(said(waiting, "Holding")).toBe("True/MovePending");
    expect(waiting.lease?.op.kind).toBe("renew");
    expect(waiting.poll).toEqual({ every: "5s" });
    const settled = decideAccount(observed([stream("H1", "js-1")], { balancer: b }, mine), NOW);
    expect(said(settled, "Holding")).toBe("False/Settled");
    expect(settled.lease?.op.kind).toBe("release");
    expect(settled.status.lastMove).toEqual(last);
  });

  it("waits interval after the last move", () => {
    const b = balancer(pooled().balancer.spec, { lastMove: { kind: "Leader", time: secondsAgo(10) } });
    const d = decideAccount(observed(ledBy("js-0", HOT), { ...pooled(), balancer: b }), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("False/Settled");
    expect(d.summary).toContain("not before 2026-12-03T10:00:50.000Z");
    expect(d.poll).toEqual({ every: "1m" });
  });

  it("holds while a member of a group in scope is not current", () => {
    const behind = stream("H2", "js-0", {
      members: SERVERS.map((s) => ({ name: s, current: s !== "js-2", offline: false, lag: 10 })),
    });
    const d = decideAccount(observed([stream("H1", "js-0"), behind], pooled()), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/Unsettled");
    expect(d.summary).toBe("stream H2 has js-2 not current");
  });

  it("holds while the NatsCluster of its servers is mid-rollout (B12)", () => {
    const clusters: AccountObserved["clusters"] = [
      {
        namespace: "nats",
        name: "js",
        servers: SERVERS,
        settled: {
          type: "Settled",
          status: "False",
          reason: "RollingOut",
          message: "js-1 restarting",
          lastTransitionTime: secondsAgo(3),
        },
      },
    ];
    const d = decideAccount(observed(ledBy("js-0", HOT), { ...pooled(), clusters }), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/Unsettled");
  });

  it("never moves a stream placed in another NATS cluster or under evacuation", () => {
    const groups = [
      stream("AWAY", "js-0", { placementCluster: "east" }),
      stream("LEAVING", "js-0"),
      stream("STAY", "js-1"),
    ];
    const o = observed(groups);
    if (o.nats.kind === "read") o.nats.evacuating = [{ account: "APP", stream: "LEAVING" }];
    expect(decideAccount(o, NOW).move).toBeUndefined();
  });

  it("reports a connection it cannot use on Ready, with one Warning, and moves nothing", () => {
    const o = observed([], {
      nats: { kind: "unavailable", reason: "ConnectionNotFound", message: "NatsConnection apps/app not found" },
    });
    const d = decideAccount(o, NOW);
    expect([said(d, "Ready"), said(d, "Holding")]).toEqual(["False/ConnectionNotFound", "True/NotObserved"]);
    expect(d.events.map((e) => `${e.type}/${e.reason}`)).toEqual(["Warning/ConnectionNotFound"]);
    expect(d.poll).toEqual({ every: "1m" });
  });
});
