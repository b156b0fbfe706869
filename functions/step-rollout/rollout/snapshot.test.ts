import { describe, expect, it } from "@jest/globals";
import { reportsOf } from "../../../test/fixtures/cluster/jsz.ts";
import { settledCondition } from "./conditions.ts";
import { judgeSettled, mergeSnapshot, whyUnobserved } from "./snapshot.ts";

const roster = ["demo-0", "demo-1", "demo-2"];

describe("snapshot of the NATS cluster", () => {
  it("takes each group's members from its leader's own view", () => {
    const snapshot = mergeSnapshot(roster, reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2" }), "clustered");
    expect(snapshot?.metaLeader).toBe("demo-1");
    expect(snapshot?.metaMembers).toEqual(["demo-1", "demo-0", "demo-2"]);
    expect(snapshot?.groups.map((g) => [g.label, g.leader])).toEqual([
      ["meta", "demo-1"],
      ["consumer ORDERS/c1", "demo-2"],
      ["stream ORDERS", "demo-2"],
    ]);
  });

  it("is Settled when every group has a leader and current members", () => {
    const snapshot = mergeSnapshot(roster, reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2" }), "clustered");
    expect(snapshot && judgeSettled(snapshot)).toMatchObject({ settled: true, reason: "AllGroupsCurrent" });
  });

  it("is Settled for one server running JetStream standalone, which reports no meta group", () => {
    const alone = {
      server: "demo-0",
      varz: { server_name: "demo-0", version: "2.15.2" },
      jsz: { account_details: [{ name: "$G", stream_detail: [{ name: "ORDERS", cluster: { leader: "demo-0" } }] }] },
    };
    const snapshot = mergeSnapshot(["demo-0"], [alone], "standalone");
    expect(snapshot?.groups.map((g) => g.label)).toEqual(["stream ORDERS"]);
    expect(snapshot && judgeSettled(snapshot)).toMatchObject({ settled: true, reason: "AllGroupsCurrent" });
  });

  it("counts the groups with a member that is not current", () => {
    const snapshot = mergeSnapshot(
      roster,
      reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", behind: ["demo-0"] }),
      "clustered",
    );
    expect(snapshot && judgeSettled(snapshot)).toMatchObject({
      settled: false,
      reason: "GroupsCatchingUp",
      message: "3 Raft groups have a member on demo-0 that is not current",
    });
  });

  it("counts a stream running on fewer copies than it asks for, while the roster could hold them all", () => {
    const alone = (server: string, replicas: number) => ({
      server,
      varz: { server_name: server, version: "2.15.2" },
      jsz: {
        meta_cluster: { leader: "demo-0", replicas: [{ name: "demo-1", current: true }] },
        account_details: [
          {
            name: "$G",
            stream_detail:
              server === "demo-0"
                ? [
                    {
                      name: "ORDERS",
                      cluster: { leader: "demo-0", replicas: [{ name: "demo-1", current: true }] },
                      config: { num_replicas: replicas },
                    },
                  ]
                : [],
          },
        ],
      },
    });
    const short = mergeSnapshot(["demo-0", "demo-1"], [alone("demo-0", 3), alone("demo-1", 3)], "clustered");
    // Two servers cannot hold three copies: nothing to wait for.
    expect(short && judgeSettled(short)).toMatchObject({ settled: true });
    const three = mergeSnapshot(
      roster,
      [alone("demo-0", 3), alone("demo-1", 3), { ...alone("demo-2", 3), jsz: { account_details: [] } }],
      "clustered",
    );
    expect(three && judgeSettled(three)).toMatchObject({
      settled: false,
      reason: "GroupsCatchingUp",
      message: "1 Raft group has fewer copies than configured: stream ORDERS",
    });
  });

  it("names servers that did not answer first", () => {
    const snapshot = mergeSnapshot(
      roster,
      reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2", silent: ["demo-0"] }),
      "clustered",
    );
    expect(snapshot && judgeSettled(snapshot)).toMatchObject({
      settled: false,
      reason: "ServersSilent",
      message: "demo-0 did not answer",
    });
  });

  it("judges a group whose leader is silent as leaderless, led only by name", () => {
    const snapshot = mergeSnapshot(
      roster,
      reportsOf({ metaLeader: "demo-1", streamLeader: "demo-0", silent: ["demo-0"] }),
      "clustered",
    );
    const stream = snapshot?.groups.find((g) => g.label === "stream ORDERS");
    expect(stream).toMatchObject({ leader: "demo-0", selfReported: false });
    expect(snapshot && judgeSettled(snapshot, "demo-0")).toMatchObject({ settled: false, reason: "GroupsCatchingUp" });
  });

  it("judges the meta group from the followers when its leader is silent", () => {
    const snapshot = mergeSnapshot(
      roster,
      reportsOf({ metaLeader: "demo-0", streamLeader: "demo-1", silent: ["demo-0"] }),
      "clustered",
    );
    expect(snapshot?.metaLeader).toBe("demo-0");
    expect(snapshot?.groups[0]).toMatchObject({ label: "meta", selfReported: false });
  });

  it("counts a server reporting another server name as silent", () => {
    const reports = reportsOf({ metaLeader: "demo-1", streamLeader: "demo-2" }).map((r) =>
      r.server === "demo-2" ? { ...r, varz: { server_name: "other" } } : r,
    );
    expect(mergeSnapshot(roster, reports, "clustered")?.silent).toEqual(["demo-2"]);
  });

  it("is undefined when no server answered", () => {
    expect(
      mergeSnapshot(
        roster,
        roster.map((server) => ({ server })),
        "clustered",
      ),
    ).toBeUndefined();
  });

  it("says server by server why the NATS cluster is not observed", () => {
    const reports = [
      { server: "demo-0", failure: "ECONNREFUSED" },
      { server: "demo-1", varz: { server_name: "edge-1" } },
      { server: "demo-2", varz: { server_name: "demo-2" }, failure: "no answer within 2 s" },
    ];
    expect(settledCondition(mergeSnapshot(roster, reports, "clustered"), whyUnobserved(roster, reports, true))).toEqual(
      {
        type: "Settled",
        status: "Unknown",
        reason: "ObservationFailed",
        message:
          "the NATS cluster is not observed: demo-0: ECONNREFUSED; demo-1: its address answers as edge-1; demo-2: no answer within 2 s",
      },
    );
  });
});
