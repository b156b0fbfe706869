import { describe, expect, it } from "@jest/globals";
import { ACCOUNT, reportsOf, SERVERS, type StreamSpec } from "../../test/fixtures/cluster/balance-jsz.ts";
import type { NatsSystemBalancer, NatsSystemBalancerStatus } from "./balancer.ts";
import { decide } from "./decide.ts";
import type { Observed } from "./observe.ts";
import { planPlacementMove } from "./plan-placement.ts";
import { mergeSnapshot } from "./snapshot.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const r1On = (server: string, count: number, prefix = "C"): StreamSpec[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i + 1}`, leader: server, members: [server] }));
const snapshotOf = (streams: StreamSpec[], tags: Record<string, string[]> = {}) =>
  mergeSnapshot("js", SERVERS, reportsOf({ streams }), new Map(Object.entries(tags)));
const any = () => true;

function observed(streams: StreamSpec[], status?: NatsSystemBalancerStatus): Observed {
  const balancer: NatsSystemBalancer = {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsSystemBalancer",
    metadata: { name: "even", namespace: "nats-system", uid: "uid-even", generation: 1 },
    spec: { connectionRef: { name: "system" }, moves: { placement: true } },
    ...(status ? { status } : {}),
  };
  return {
    balancer,
    others: [],
    nats: { kind: "read", snapshot: snapshotOf(streams), reach: new Map([[ACCOUNT, true]]) },
  };
}

describe("placement moves", () => {
  it("move a copy off the server holding the most, when it pays off wherever it lands", () => {
    const { groups, roster } = snapshotOf(r1On("js-0", 6));
    expect(planPlacementMove(groups, roster, new Map(), any)).toMatchObject({ group: { stream: "C1" }, from: "js-0" });
  });

  it("stay put when a copy could land where it gains nothing", () => {
    const streams = [...r1On("js-0", 3, "A"), ...r1On("js-1", 2, "B"), ...r1On("js-2", 1, "C")];
    const { groups, roster } = snapshotOf(streams);
    // 3/2/1: the copy off js-0 might land on js-1 (3 - 2 = 1).
    expect(planPlacementMove(groups, roster, new Map(), any)).toBeUndefined();
  });

  it("land only on servers carrying the stream's placement tags", () => {
    const streams = r1On("js-0", 6);
    const snapshot = mergeSnapshot(
      "js",
      SERVERS,
      reportsOf({ streams }).map((r) => ({
        ...r,
        ...(r.jsz
          ? {
              jsz: {
                ...r.jsz,
                account_details: r.jsz.account_details?.map((a) => ({
                  ...a,
                  stream_detail: a.stream_detail?.map((d) => ({ ...d, config: { placement: { tags: ["SSD"] } } })),
                })),
              },
            }
          : {}),
      })),
      new Map([["js-0", ["ssd"]]]),
    );
    expect(planPlacementMove(snapshot.groups, snapshot.roster, snapshot.tags ?? new Map(), any)).toBeUndefined();
    const tagged = new Map([
      ["js-0", ["ssd"]],
      ["js-2", ["ssd"]],
    ]);
    expect(planPlacementMove(snapshot.groups, snapshot.roster, tagged, any)).toMatchObject({ from: "js-0" });
  });

  it("are requested as one ACCOUNT.STREAM.MOVE off the fullest server, with capabilities.placement true", () => {
    const d = decide(observed(r1On("js-0", 6)), NOW);
    expect(d.move).toEqual({
      target: { account: ACCOUNT, stream: "C1" },
      from: "js-0",
      to: "",
      placement: { cluster: "js" },
    });
    expect(d.status.capabilities?.placement).toBe(true);
    expect(d.status.lastMove).toMatchObject({ kind: "Placement", stream: "C1", from: "js-0" });
    expect(d.events.map((e) => e.note)).toContain(`moving the copy of stream C1 in account ${ACCOUNT} off js-0`);
  });

  it("hold with MovePending until the copy has left, then record MoveDone", () => {
    const move = {
      kind: "Placement" as const,
      account: ACCOUNT,
      stream: "C1",
      consumer: "",
      from: "js-0",
      to: "",
      time: new Date(NOW.getTime() - 3_000).toISOString(),
    };
    const waiting = decide(observed(r1On("js-0", 6), { pending: [move], lastMove: move }), NOW);
    expect(waiting.move).toBeUndefined();
    expect(waiting.status.conditions?.find((c) => c.type === "Holding")).toMatchObject({
      status: "True",
      reason: "MovePending",
    });
    const moved = [{ name: "C1", leader: "js-2", members: ["js-2"] }, ...r1On("js-0", 5, "D")];
    const done = decide(observed(moved, { pending: [move], lastMove: move }), NOW);
    expect(done.events).toContainEqual({
      type: "Normal",
      reason: "MoveDone",
      note: `copy of stream C1 in account ${ACCOUNT}: off js-0, copies now on js-2`,
    });
  });
});
