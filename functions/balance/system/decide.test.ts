import { describe, expect, it } from "@jest/globals";
import {
  ACCOUNT,
  type ClusterSpec,
  reportsOf,
  SERVERS,
  streamsLedBy,
} from "../../../test/fixtures/cluster/balance-jsz.ts";
import type { Move, NatsSystemBalancer, NatsSystemBalancerStatus } from "./resource.ts";
import { decide } from "./decide.ts";
import type { Decision } from "./types.ts";
import type { Observed } from "./observe.ts";
import { mergeSnapshot } from "../leaders/snapshot.ts";
import { BALANCER_REASONS } from "../../../shared/api/index.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const minutesAgo = (n: number) => new Date(NOW.getTime() - n * 60_000).toISOString();

function balancer(
  spec: Partial<NatsSystemBalancer["spec"]> = {},
  status?: NatsSystemBalancerStatus,
  name = "even",
  created = "2026-12-01T00:00:00Z",
): NatsSystemBalancer {
  return {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsSystemBalancer",
    metadata: { name, namespace: "nats-system", uid: `uid-${name}`, generation: 1, creationTimestamp: created },
    spec: { connectionRef: { name: "system" }, ...spec },
    ...(status ? { status } : {}),
  };
}

function observed(cluster: ClusterSpec, over: Partial<Observed> = {}, reach?: Map<string, boolean>): Observed {
  const snapshot = mergeSnapshot("js", SERVERS, reportsOf(cluster));
  const accounts = [...new Set(snapshot.groups.map((g) => g.account))];
  return {
    balancer: balancer(),
    others: [],
    nats: { kind: "read", snapshot, ownAccount: "SYS", reach: reach ?? new Map(accounts.map((a) => [a, true])) },
    ...over,
  };
}

const condition = (d: Decision, type: string) => d.status.conditions?.find((c) => c.type === type);
const said = (d: Decision, type: string) => {
  const c = condition(d, type);
  return c ? `${c.status}/${c.reason}` : "absent";
};
const leaderMove = (over: Partial<Move> = {}): Move => ({
  kind: "Leader",
  account: ACCOUNT,
  stream: "S1",
  consumer: "",
  from: "js-0",
  to: "js-1",
  time: minutesAgo(0.1),
  ...over,
});

describe("NatsSystemBalancer pass", () => {
  it("moves one stream leader off the server leading all nine to the one leading fewest", () => {
    const d = decide(observed({ streams: streamsLedBy("js-0", 9) }), NOW);
    expect(d.move).toEqual({
      target: { account: ACCOUNT, stream: "S1" },
      from: "js-0",
      to: "js-1",
      ownAccount: "SYS",
    });
    expect(d.status.pending).toEqual([{ ...leaderMove(), time: NOW.toISOString() }]);
    expect(d.status.lastMove).toEqual(d.status.pending?.[0]);
    expect(d.status.servers).toEqual([
      { name: "js-0", leaders: 9, replicas: 9 },
      { name: "js-1", leaders: 0, replicas: 9 },
      { name: "js-2", leaders: 0, replicas: 9 },
    ]);
    expect(d.status.skew).toEqual({ leaders: 9, replicas: 0 });
    expect(d.status.capabilities).toEqual({ placement: false, leader: "Full" });
    expect(said(d, "Ready")).toBe("True/Balancing");
    expect(said(d, "Holding")).toBe("False/Settled");
    expect(d.events).toEqual([
      {
        type: "Normal",
        reason: "MoveStarted",
        note: `moving the leader of stream S1 in account ${ACCOUNT} from js-0 to js-1`,
      },
    ]);
    expect(d.poll).toEqual({ every: "5s" });
  });

  it("holds with MovePending while the moved group has not settled", () => {
    const streams = streamsLedBy("js-0", 9).map((s) =>
      s.name === "S1" ? { ...s, leader: "js-1", behind: ["js-0"] } : s,
    );
    const d = decide(
      observed({ streams }, { balancer: balancer({}, { pending: [leaderMove()], lastMove: leaderMove() }) }),
      NOW,
    );
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/MovePending");
    expect(condition(d, "Holding")?.message).toContain("stream S1 has js-0 not current");
    expect(d.status.pending).toHaveLength(1);
    expect(d.poll).toEqual({ every: "5s" });
  });

  it("records MoveDone once the cluster settles, and waits interval before the next move", () => {
    const streams = streamsLedBy("js-0", 9).map((s) => (s.name === "S1" ? { ...s, leader: "js-1" } : s));
    const d = decide(
      observed({ streams }, { balancer: balancer({}, { pending: [leaderMove()], lastMove: leaderMove() }) }),
      NOW,
    );
    expect(d.events).toEqual([
      { type: "Normal", reason: "MoveDone", note: `leader of stream S1 in account ${ACCOUNT}: now on js-1` },
    ]);
    expect(d.status.pending).toEqual([]);
    expect(d.move).toBeUndefined();
    expect(condition(d, "Holding")?.message).toMatch(/next move .* not before 2026-12-03T10:00:54/);
    expect(d.poll).toEqual({ every: "1m" });
  });

  it("makes the next move once interval has passed since the last", () => {
    const streams = streamsLedBy("js-0", 9).map((s) => (s.name === "S1" ? { ...s, leader: "js-1" } : s));
    const last = leaderMove({ time: minutesAgo(2) });
    const d = decide(observed({ streams }, { balancer: balancer({}, { lastMove: last }) }), NOW);
    expect(d.move).toMatchObject({ target: { stream: "S2" }, from: "js-0", to: "js-2" });
  });

  it("paces moves by its own interval", () => {
    const last = leaderMove({ time: new Date(NOW.getTime() - 5_000).toISOString() });
    const fast = balancer({ interval: "5s" }, { lastMove: last });
    expect(decide(observed({ streams: streamsLedBy("js-0", 9) }, { balancer: fast }), NOW).move).toBeDefined();
    const slow = balancer({ interval: "10s" }, { lastMove: last });
    expect(decide(observed({ streams: streamsLedBy("js-0", 9) }, { balancer: slow }), NOW).move).toBeUndefined();
  });

  it("stays put once no server leads more than one stream over another", () => {
    const streams = [...streamsLedBy("js-0", 3, "A"), ...streamsLedBy("js-1", 3, "B"), ...streamsLedBy("js-2", 2, "C")];
    const d = decide(observed({ streams }), NOW);
    expect(d.move).toBeUndefined();
    expect(d.status.skew?.leaders).toBe(1);
    expect(said(d, "Holding")).toBe("False/Settled");
    expect(condition(d, "Holding")?.message).toBe("settled, nothing to move: leader skew 1 across 3 servers");
  });

  it("holds while a server misses a JSZ page", () => {
    const d = decide(observed({ streams: streamsLedBy("js-0", 9), silent: ["js-2"] }), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/Unsettled");
    expect(condition(d, "Holding")?.message).toBe("js-2 did not answer every JSZ page of NATS cluster js");
  });

  it("holds while the meta group has no leader", () => {
    const d = decide(observed({ streams: streamsLedBy("js-0", 9), metaLeader: "" }), NOW);
    expect(d.move).toBeUndefined();
    expect(condition(d, "Holding")?.message).toBe("the meta group of NATS cluster js has no leader");
  });

  it("holds while a member of any group is not current, naming at most five groups", () => {
    const streams = streamsLedBy("js-0", 9).map((s) => ({ ...s, behind: ["js-2"] }));
    const d = decide(observed({ streams }), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Holding")).toBe("True/Unsettled");
    expect(condition(d, "Holding")?.message).toMatch(/^stream S1 has js-2 not current; .* and 4 more$/);
  });

  it("evens consumer leaders once stream leaders are even", () => {
    const streams = [
      { name: "A", leader: "js-0", consumers: [1, 2, 3].map((i) => ({ name: `c${i}`, leader: "js-2" })) },
      { name: "B", leader: "js-1" },
      { name: "C", leader: "js-2" },
    ];
    const d = decide(observed({ streams }), NOW);
    expect(d.move).toMatchObject({ target: { stream: "A", consumer: "c1" }, from: "js-2", to: "js-0" });
    expect(d.status.lastMove).toMatchObject({ kind: "Leader", stream: "A", consumer: "c1" });
  });

  it("reads Partial and moves only streams of accounts whose stepdown export the system account imports", () => {
    const streams = [
      ...streamsLedBy("js-0", 4, "N").map((s) => ({ ...s, account: "ACCT_NOEXPORT" })),
      ...streamsLedBy("js-0", 4, "Y"),
    ];
    const reach = new Map([
      [ACCOUNT, true],
      ["ACCT_NOEXPORT", false],
    ]);
    const d = decide(observed({ streams }, {}, reach), NOW);
    expect(d.status.capabilities).toEqual({
      placement: false,
      leader: "Partial",
      leaderReason: "1 of 2 accounts carry no jetstream-stepdown export the system account imports: ACCT_NOEXPORT",
    });
    expect(d.move?.target).toEqual({ account: ACCOUNT, stream: "Y1" });
  });

  it("with leader moves off, probes nothing and moves nothing", () => {
    const base = observed({ streams: streamsLedBy("js-0", 9) });
    const nats = base.nats.kind === "read" ? { ...base.nats, reach: undefined } : base.nats;
    const d = decide({ ...base, balancer: balancer({ moves: { leader: false } }), nats }, NOW);
    expect(d.move).toBeUndefined();
    expect(d.status.capabilities).toEqual({ placement: false });
    expect(condition(d, "Holding")?.message).toBe("leader moves are off; leader skew 9 across 3 servers");
  });

  it("never moves a stream whose placement names another NATS cluster", () => {
    const streams = streamsLedBy("js-0", 9).map((s) => ({ ...s, placementCluster: "elsewhere" }));
    expect(decide(observed({ streams }), NOW).move).toBeUndefined();
  });

  it("leaves alone the streams an evacuation of its NATS cluster is moving", () => {
    const base = observed({ streams: streamsLedBy("js-0", 9) });
    if (base.nats.kind !== "read") throw new Error("fixture");
    const evacuating = Array.from({ length: 8 }, (_, i) => ({ account: ACCOUNT, stream: `S${i + 1}` }));
    const d = decide({ ...base, nats: { ...base.nats, evacuating } }, NOW);
    expect(d.move?.target).toEqual({ account: ACCOUNT, stream: "S9" });
    expect(condition(d, "Ready")?.message).toMatch(/; 8 streams under evacuation left alone$/);
  });

  it("holds while the NatsCluster whose servers it covers is not Settled, mid-rollout", () => {
    const settled = (status: "True" | "False") => ({
      type: "Settled",
      status,
      reason: status === "True" ? "Settled" : "Unsettled",
      message: status === "True" ? "" : "js-1 is restarting",
      lastTransitionTime: minutesAgo(1),
    });
    const cluster = (status: "True" | "False", servers = SERVERS) => ({
      namespace: "nats-system",
      name: "js",
      servers,
      settled: settled(status),
    });
    const rolling = decide(observed({ streams: streamsLedBy("js-0", 9) }, { clusters: [cluster("False")] }), NOW);
    expect(rolling.move).toBeUndefined();
    expect(said(rolling, "Holding")).toBe("True/Unsettled");
    expect(condition(rolling, "Holding")?.message).toBe(
      "NatsCluster nats-system/js is not Settled (Unsettled): js-1 is restarting",
    );
    const elsewhere = [cluster("False", ["other-0"])];
    expect(decide(observed({ streams: streamsLedBy("js-0", 9) }, { clusters: elsewhere }), NOW).move).toBeDefined();
    expect(
      decide(observed({ streams: streamsLedBy("js-0", 9) }, { clusters: [cluster("True")] }), NOW).move,
    ).toBeDefined();
  });

  it("a second balancer on the same NATS cluster reads DuplicateBalancer and moves nothing", () => {
    const older = balancer(
      { connectionRef: { name: "other-system" } },
      { servers: [{ name: "js-1" }] },
      "first",
      "2026-11-01T00:00:00Z",
    );
    const d = decide(observed({ streams: streamsLedBy("js-0", 9) }, { others: [older] }), NOW);
    expect(d.move).toBeUndefined();
    expect(said(d, "Ready")).toBe("False/DuplicateBalancer");
    expect(condition(d, "Ready")?.message).toBe(
      "NatsSystemBalancer nats-system/first already balances NATS cluster js",
    );
    expect(said(d, "Holding")).toBe("True/MoveLeaseHeld");
    expect(d.events).toEqual([
      {
        type: "Warning",
        reason: "DuplicateBalancer",
        note: "NatsSystemBalancer nats-system/first already balances NATS cluster js",
      },
    ]);
  });

  it("the oldest of two balancers on one NATS cluster balances it", () => {
    const younger = balancer({}, { servers: [{ name: "js-1" }] }, "second", "2026-12-02T00:00:00Z");
    expect(decide(observed({ streams: streamsLedBy("js-0", 9) }, { others: [younger] }), NOW).move).toBeDefined();
  });

  it("shows a connection that fails on Ready with one Warning, not one per pass, and keeps its tick", () => {
    const nats = {
      kind: "unavailable" as const,
      reason: BALANCER_REASONS.NotSystemUser,
      message: "no server answered",
    };
    const first = decide({ balancer: balancer(), others: [], nats }, NOW);
    expect(said(first, "Ready")).toBe("False/NotSystemUser");
    expect(said(first, "Holding")).toBe("True/NotObserved");
    expect(first.events).toEqual([{ type: "Warning", reason: "NotSystemUser", note: "no server answered" }]);
    expect(first.poll).toEqual({ every: "1m" });
    const again = decide({ balancer: balancer({}, first.status), others: [], nats }, NOW);
    expect(again.events).toEqual([]);
    expect(again.status).toEqual(first.status);
  });

  it("writes the same status on a pass that finds nothing changed", () => {
    const streams = [...streamsLedBy("js-0", 3, "A"), ...streamsLedBy("js-1", 3, "B"), ...streamsLedBy("js-2", 3, "C")];
    const first = decide(observed({ streams }), NOW);
    const again = decide(
      observed({ streams }, { balancer: balancer({}, first.status) }),
      new Date(NOW.getTime() + 60_000),
    );
    expect(again.status).toEqual(first.status);
    expect(again.events).toEqual([]);
  });
});
