import { describe, expect, it } from "@jest/globals";
import { ACCOUNT, reportsOf, SERVERS, type StreamSpec } from "../../../test/fixtures/cluster/balance-jsz.ts";
import type { NatsSystemBalancer, NatsSystemBalancerStatus } from "./resource.ts";
import { decide } from "./decide.ts";
import type { Observed } from "./observe.ts";
import {
  copiesPerServer,
  type PlacementMemory,
  planPlacementMove,
  recallPlacement,
  rememberMove,
  unevennessOf,
} from "./plan-placement.ts";
import { mergeSnapshot } from "../leaders/snapshot.ts";

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

/** R1 streams A… on js-0, B… on js-1 and C… on js-2. */
const spread = (a: number, b: number, c: number) => [
  ...r1On("js-0", a, "A"),
  ...r1On("js-1", b, "B"),
  ...r1On("js-2", c, "C"),
];
const memoryOf = (over: Partial<PlacementMemory> = {}): PlacementMemory => ({
  lowestUnevenness: 14,
  copies: 6,
  servers: 3,
  tried: [],
  ...over,
});
const tried = (...streams: string[]) => streams.map((stream) => ({ account: ACCOUNT, stream }));

describe("placement moves", () => {
  it("move a copy off the server holding the most, surely when it pays off wherever it lands", () => {
    const { groups, roster } = snapshotOf(r1On("js-0", 6));
    expect(planPlacementMove(groups, roster, new Map(), any)).toMatchObject({
      group: { stream: "C1" },
      from: "js-0",
      sure: true,
    });
  });

  it("3/2/1 makes an unsure move off the fullest server: it pays off only if the copy lands on js-2", () => {
    const { groups, roster } = snapshotOf(spread(3, 2, 1));
    expect(planPlacementMove(groups, roster, new Map(), any)).toMatchObject({
      group: { stream: "A1" },
      from: "js-0",
      sure: false,
    });
  });

  it("stay put when no landing could gain: 2/1/1 and 2/2/1", () => {
    for (const streams of [spread(2, 1, 1), spread(2, 2, 1)]) {
      const { groups, roster } = snapshotOf(streams);
      expect(planPlacementMove(groups, roster, new Map(), any)).toBeUndefined();
    }
  });

  it("a stream already tried since the last new minimum is not tried again", () => {
    const { groups, roster } = snapshotOf(spread(3, 2, 1));
    expect(planPlacementMove(groups, roster, new Map(), any, tried("A1"))).toMatchObject({
      group: { stream: "A2" },
      sure: false,
    });
    expect(planPlacementMove(groups, roster, new Map(), any, tried("A1", "A2", "A3"))).toBeUndefined();
  });

  it("sure moves beat unsure ones, and need no memory", () => {
    // 4/3/1: an R1 copy off js-0 is unsure (it may land on js-1); the R2 stream P can only land on js-2.
    const streams = [...spread(3, 2, 1), { name: "P", leader: "js-0", members: ["js-0", "js-1"] }];
    const { groups, roster } = snapshotOf(streams);
    const move = planPlacementMove(groups, roster, new Map(), any, tried("P"));
    expect(move).toMatchObject({ group: { stream: "P" }, from: "js-0", sure: true });
    if (!move) return;
    const memory = memoryOf({ tried: tried("A1") });
    expect(rememberMove(memory, move)).toBe(memory);
  });

  it("an unsure move is remembered", () => {
    const { groups, roster } = snapshotOf(spread(3, 2, 1));
    const move = planPlacementMove(groups, roster, new Map(), any);
    expect(move?.sure).toBe(false);
    if (!move) return;
    expect(rememberMove(memoryOf({ tried: tried("B1") }), move).tried).toEqual(tried("B1", "A1"));
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

  it("keep in status.placement the unevenness they start from, and the stream of an unsure move", () => {
    const d = decide(observed(spread(3, 2, 1)), NOW);
    expect(d.move).toMatchObject({ target: { stream: "A1" }, from: "js-0" });
    expect(d.status.placement).toEqual(memoryOf({ tried: tried("A1") }));
  });

  it("do not move again a stream status.placement.tried names while unevenness has not dropped", () => {
    const placement = memoryOf({ tried: tried("A1", "A2", "A3") });
    const d = decide(observed(spread(3, 2, 1), { placement }), NOW);
    expect(d.move).toBeUndefined();
    expect(d.status.placement).toEqual(placement);
  });

  it("forget what status.placement remembers once placement moves are turned off", () => {
    const on = observed(spread(3, 2, 1), { placement: memoryOf({ tried: tried("A1") }) });
    const off = { ...on, balancer: { ...on.balancer, spec: { ...on.balancer.spec, moves: { placement: false } } } };
    expect(decide(off, NOW).status.placement).toBeUndefined();
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
    const placement = memoryOf({ lowestUnevenness: 36 });
    const waiting = decide(observed(r1On("js-0", 6), { pending: [move], lastMove: move, placement }), NOW);
    expect(waiting.move).toBeUndefined();
    expect(waiting.status.placement).toBe(placement);
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

describe("placement memory", () => {
  const recall = (previous: PlacementMemory | undefined, streams: StreamSpec[]) => {
    const { groups, roster } = snapshotOf(streams);
    return recallPlacement(previous, groups, roster, any);
  };

  it("starts at the unevenness seen: the sum of each server's copies squared", () => {
    expect(recall(undefined, spread(3, 2, 1))).toEqual(memoryOf({ lowestUnevenness: 9 + 4 + 1 }));
  });

  it("a new minimum forgets what was tried", () => {
    expect(recall(memoryOf({ tried: tried("A1", "B1") }), spread(2, 2, 2))).toEqual(memoryOf({ lowestUnevenness: 12 }));
  });

  it("the same unevenness, counts swapped, keeps what was tried", () => {
    const memory = memoryOf({ tried: tried("A1") });
    expect(recall(memory, spread(2, 3, 1))).toEqual(memory);
  });

  it("another count of copies or servers starts over: unevenness over another pool cannot be compared", () => {
    // A stream created: 3/2/2 is more uneven than 3/2/1 was, yet nothing was moved back and forth.
    expect(recall(memoryOf({ tried: tried("A1") }), spread(3, 2, 2))).toEqual(
      memoryOf({ lowestUnevenness: 17, copies: 7 }),
    );
    expect(recall(memoryOf({ servers: 4, tried: tried("A1") }), spread(3, 2, 1)).tried).toEqual([]);
  });

  it("keeps at most the streams in scope: gone or out-of-scope streams are forgotten", () => {
    const memory = memoryOf({ tried: tried("A1", "GONE", "B1") });
    const { groups, roster } = snapshotOf(spread(3, 2, 1));
    const inScope = (g: { stream: string }) => g.stream !== "B1";
    expect(recallPlacement(memory, groups, roster, inScope).tried).toEqual(tried("A1"));
  });
});

/** Where the server lands a copy, among the servers it may land on. */
type Landing = (landings: readonly string[], holds: ReadonlyMap<string, number>) => string;
const byHolds =
  (pick: (a: number, b: number) => boolean): Landing =>
  (landings, holds) =>
    landings.reduce((best, s) => (pick(holds.get(s) ?? 0, holds.get(best) ?? 0) ? s : best));
const fullest = byHolds((a, b) => a > b);
const emptiest = byHolds((a, b) => a < b);

/**
 * Balancer passes over R1 streams, each move's copy landed by `land`, the memory carried from pass
 * to pass as the status carries it, until a pass plans nothing (or 100 passes).
 */
function passes(streams: StreamSpec[], land: Landing) {
  const where = new Map(streams.map((s) => [s.name, s.leader]));
  let memory: PlacementMemory | undefined;
  const unevenness: number[] = [];
  /** The streams moved since each new minimum of unevenness. */
  const windows: string[][] = [];
  for (let pass = 0; pass < 100; pass++) {
    const { groups, roster } = snapshotOf([...where].map(([name, s]) => ({ name, leader: s, members: [s] })));
    const holds = copiesPerServer(groups, roster);
    const now = unevennessOf(holds);
    if (unevenness.length === 0 || now < Math.min(...unevenness)) windows.push([]);
    unevenness.push(now);
    memory = recallPlacement(memory, groups, roster, any);
    const move = planPlacementMove(groups, roster, new Map(), any, memory.tried);
    if (!move) return { ended: true, holds: [...holds.values()], unevenness, windows };
    memory = rememberMove(memory, move);
    windows.at(-1)?.push(move.group.stream);
    where.set(
      move.group.stream,
      land(
        roster.filter((s) => s !== move.from),
        holds,
      ),
    );
  }
  return { ended: false, holds: [], unevenness, windows };
}
const skew = (holds: number[]) => Math.max(...holds) - Math.min(...holds);
const neverRises = (values: number[]) => values.every((v, i) => i === 0 || v <= (values[i - 1] ?? v));
const noStreamTwice = (windows: string[][]) => windows.every((w) => new Set(w).size === w.length);

describe("placement passes", () => {
  it("6/0/0 evens to 2/2/2 when the server lands each copy on the emptiest server, the last move unsure", () => {
    const run = passes(r1On("js-0", 6), emptiest);
    expect(run).toMatchObject({ ended: true, holds: [2, 2, 2] });
    expect(run.unevenness).toEqual([36, 26, 18, 14, 12]);
  });

  it("3/2/1 with the worst landing each time: each stream is tried once, then passes end", () => {
    const run = passes(spread(3, 2, 1), fullest);
    expect(run.ended).toBe(true);
    // Every unsure move swaps 3/2/1 and 2/3/1; unevenness never drops, so no stream moves twice.
    expect(run.unevenness.every((u) => u === 14)).toBe(true);
    expect(noStreamTwice(run.windows)).toBe(true);
    expect(skew(run.holds)).toBe(2);
  });

  it("6/0/0 with the worst landing each time ends, unevenness never rising and no stream moved twice without a new minimum", () => {
    const run = passes(r1On("js-0", 6), fullest);
    expect(run.ended).toBe(true);
    expect(neverRises(run.unevenness)).toBe(true);
    expect(noStreamTwice(run.windows)).toBe(true);
    // A server that always lands copies on the fullest server it may keeps js-2 empty: no move off
    // js-0 or js-1 can force a copy onto it, whatever rule picks the moves.
    expect(run.holds).toEqual([3, 3, 0]);
  });

  it("whatever the landings, passes end with unevenness never rising and no stream moved twice without a new minimum", () => {
    let seed = 7;
    const random: Landing = (landings) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return landings[Math.floor((seed / 2 ** 31) * landings.length)] ?? "";
    };
    for (let run = 0; run < 200; run++) {
      const result = passes(run % 2 === 0 ? r1On("js-0", 6) : spread(4, 3, 0), random);
      expect(result.ended).toBe(true);
      expect(neverRises(result.unevenness)).toBe(true);
      expect(noStreamTwice(result.windows)).toBe(true);
    }
  });

  it("3/3/1 stays put: every copy off a server holding 3 could land on the other, so only the server's landings take skew below 2", () => {
    const run = passes(spread(3, 3, 1), emptiest);
    expect(run).toMatchObject({ ended: true, holds: [3, 3, 1], windows: [[]] });
  });
});
