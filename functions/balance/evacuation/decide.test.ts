import { describe, expect, it } from "@jest/globals";
import { decideEvacuation, withRefusals } from "./decide.ts";
import type { NatsClusterEvacuation, NatsClusterEvacuationStatus } from "./resource.ts";
import type { EvacuationObserved, OwningResource } from "./observe.ts";
import { metaOf, sourceOf, type SourceStream, type SourceView } from "./source.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const SECONDS_AGO = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const EAST = ["east-0", "east-1"];

function evacuationWith(status?: NatsClusterEvacuationStatus, tags = ["site:west"]): NatsClusterEvacuation {
  return {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsClusterEvacuation",
    metadata: { name: "retire-east", namespace: "nats-system", generation: 1 },
    spec: { connectionRef: { name: "system" }, from: { cluster: "east" }, to: { serverTags: tags } },
    ...(status ? { status } : {}),
  };
}

const inEast = (name: string, extra: Partial<SourceStream> = {}): SourceStream => ({
  account: "APP",
  name,
  peers: EAST,
  ...extra,
});

function view(streams: SourceStream[], extra: Partial<SourceView> = {}): SourceView {
  return {
    cluster: "east",
    servers: EAST.map((name) => ({ name, tags: ["site:east"] })),
    silent: [],
    meta: { leader: "west-0", offline: [] },
    streams,
    targets: ["west-0", "west-1"],
    ...extra,
  };
}

function observed(
  streams: SourceStream[],
  options: { status?: NatsClusterEvacuationStatus; resources?: OwningResource[]; view?: Partial<SourceView> } = {},
): EvacuationObserved {
  return {
    evacuation: evacuationWith(options.status),
    source: { kind: "read", view: view(streams, options.view) },
    resources: options.resources ?? [],
  };
}

const condition = (status: NatsClusterEvacuationStatus, type: string) =>
  status.conditions?.find((c) => c.type === type);

describe("an evacuation pass", () => {
  it("requests moves for at most four streams at once, the rest waiting for a slot", () => {
    const streams = ["A", "B", "C", "D", "E", "F"].map((n) => inEast(n));
    const d = decideEvacuation(observed(streams), NOW);
    expect(d.moves.map((m) => m.stream)).toEqual(["A", "B", "C", "D"]);
    expect(d.status).toMatchObject({ inFlight: 4, remaining: 6, moved: 0 });
    expect(d.status.requested).toEqual(
      ["A", "B", "C", "D"].map((stream) => ({ account: "APP", stream, time: NOW.toISOString() })),
    );
    expect(condition(d.status, "Ready")).toMatchObject({ status: "False", reason: "Moving" });
    expect(condition(d.status, "Progressing")).toMatchObject({ status: "True", reason: "Moving" });
    expect(d.events.filter((e) => e.reason === "MoveStarted")).toHaveLength(4);
    expect(d.poll).toEqual({ every: "5s" });
  });

  it("counts a requested stream that no longer shows in the source as moved, and fills its slot", () => {
    const status = { requested: [{ account: "APP", stream: "A", time: SECONDS_AGO(10) }], moved: 2 };
    const d = decideEvacuation(observed([inEast("B")], { status }), NOW);
    expect(d.status).toMatchObject({ moved: 3, inFlight: 1, remaining: 1 });
    expect(d.moves).toEqual([{ account: "APP", stream: "B" }]);
    expect(d.events).toContainEqual({
      type: "Normal",
      reason: "MoveDone",
      note: "stream A of account APP left NATS cluster east",
    });
  });

  it("keeps a move in flight while a copy is outside the source, past the request grace", () => {
    const status = { requested: [{ account: "APP", stream: "A", time: SECONDS_AGO(300) }] };
    const d = decideEvacuation(observed([inEast("A", { peers: ["east-0", "west-0"] })], { status }), NOW);
    expect(d.moves).toEqual([]);
    expect(d.status).toMatchObject({ inFlight: 1, remaining: 1, requested: status.requested });
  });

  it("asks again for a move that shows no copy outside the source once the request grace has passed", () => {
    const status = { requested: [{ account: "APP", stream: "A", time: SECONDS_AGO(61) }] };
    const d = decideEvacuation(observed([inEast("A")], { status }), NOW);
    expect(d.moves).toEqual([{ account: "APP", stream: "A" }]);
    expect(d.status.requested).toEqual([{ account: "APP", stream: "A", time: NOW.toISOString() }]);
  });

  it("never moves a stream whose resource pins the source, and lists the resource", () => {
    const resources: OwningResource[] = [
      { kind: "NatsKeyValue", namespace: "team-a", name: "config", uid: "u-1", placementCluster: "east" },
    ];
    const d = decideEvacuation(observed([inEast("KV_config", { owner: "u-1" })], { resources }), NOW);
    expect(d.moves).toEqual([]);
    expect(d.status).toMatchObject({
      remaining: 0,
      pinned: [{ kind: "NatsKeyValue", namespace: "team-a", name: "config" }],
    });
    expect(condition(d.status, "Ready")).toMatchObject({ status: "False", reason: "PinnedObjects" });
    expect(condition(d.status, "Progressing")).toMatchObject({ status: "False", reason: "NothingMovable" });
    expect(d.poll).toEqual({ every: "1m" });
  });

  it("moves a stream whose resource sets no placement.cluster", () => {
    const resources: OwningResource[] = [{ kind: "NatsStream", namespace: "team-a", name: "orders", uid: "u-2" }];
    const d = decideEvacuation(observed([inEast("ORDERS", { owner: "u-2" })], { resources }), NOW);
    expect(d.moves).toEqual([{ account: "APP", stream: "ORDERS" }]);
    expect(d.status.stalePlacement).toEqual([]);
  });

  it("leaves a stream whose resource names another cluster to its owner", () => {
    const resources: OwningResource[] = [
      { kind: "NatsStream", namespace: "team-a", name: "orders", uid: "u-2", placementCluster: "west" },
    ];
    const d = decideEvacuation(observed([inEast("ORDERS", { owner: "u-2" })], { resources }), NOW);
    expect(d.moves).toEqual([]);
    expect(condition(d.status, "Ready")).toMatchObject({ status: "False", reason: "AwaitingOwners" });
  });

  it("lists an unowned stream whose config names the source as a stale placement once requested, and keeps it listed", () => {
    const first = decideEvacuation(observed([inEast("LEGACY", { placementCluster: "east" })]), NOW);
    expect(first.status.stalePlacement).toEqual([{ account: "APP", name: "LEGACY" }]);
    const later = decideEvacuation(observed([], { status: first.status }), NOW);
    expect(later.status.stalePlacement).toEqual([{ account: "APP", name: "LEGACY" }]);
    expect(later.status.moved).toBe(1);
  });

  it("is Evacuated once nothing is left in the source, and stops polling", () => {
    const d = decideEvacuation(observed([], { status: { moved: 7 } }), NOW);
    expect(condition(d.status, "Ready")).toMatchObject({
      status: "True",
      reason: "Evacuated",
      message: "no stream is left in NATS cluster east: 7 moved",
    });
    expect(condition(d.status, "Progressing")).toMatchObject({ status: "False", reason: "Evacuated" });
    expect(d.poll).toBe(false);
  });
});

describe("an evacuation that moves nothing", () => {
  it("refuses target tags a source server carries, with one EvacuationRefused Warning", () => {
    const o = { ...observed([inEast("A")]), evacuation: evacuationWith(undefined, ["SITE:east"]) };
    const d = decideEvacuation(o, NOW);
    expect(d.moves).toEqual([]);
    expect(condition(d.status, "Ready")).toMatchObject({ status: "False", reason: "TargetTagsInSource" });
    expect(condition(d.status, "Progressing")).toMatchObject({ status: "False", reason: "TargetTagsInSource" });
    expect(d.events.map((e) => `${e.type} ${e.reason}`)).toEqual(["Warning EvacuationRefused"]);
    expect(d.poll).toBe(false);
    const again = decideEvacuation({ ...o, evacuation: evacuationWith(d.status, ["SITE:east"]) }, NOW);
    expect(again.events).toEqual([]);
  });

  it("refuses target tags no server carries, with one EvacuationRefused Warning, and looks again in a minute", () => {
    const o = observed([inEast("A")], { view: { targets: [] } });
    const d = decideEvacuation(o, NOW);
    expect(d.moves).toEqual([]);
    expect(condition(d.status, "Ready")).toMatchObject({
      status: "False",
      reason: "NoTargetServers",
      message: "no server of the NATS system carries the target tags site:west: no stream could land anywhere",
    });
    expect(d.events.map((e) => `${e.type} ${e.reason}`)).toEqual(["Warning EvacuationRefused"]);
    // Servers carrying the tags may join later without a spec change.
    expect(d.poll).toEqual({ every: "1m" });
    const again = decideEvacuation({ ...o, evacuation: evacuationWith(d.status) }, NOW);
    expect(again.events).toEqual([]);
  });

  it.each([
    [
      "a source server did not answer",
      { silent: ["east-1"] },
      "east-1 of NATS cluster east did not answer every JSZ page",
    ],
    ["the meta group has no leader", { meta: { offline: [] } }, "the meta group has no leader"],
    [
      "the meta leader counts a server offline",
      { meta: { leader: "west-0", offline: ["west-1"] } },
      "the meta leader west-0 counts west-1 offline",
    ],
  ])("holds with ServersDown when %s, counting nothing done", (_, extra, why) => {
    const status = { requested: [{ account: "APP", stream: "A", time: SECONDS_AGO(10) }], moved: 1 };
    const d = decideEvacuation(observed([inEast("B")], { status, view: extra }), NOW);
    expect(d.moves).toEqual([]);
    expect(d.status).toMatchObject({ moved: 1, requested: status.requested });
    expect(condition(d.status, "Ready")).toMatchObject({
      status: "False",
      reason: "ServersDown",
      message: `no move is made or counted done: ${why}`,
    });
    expect(condition(d.status, "Progressing")).toMatchObject({ status: "False", reason: "ServersDown" });
    expect(d.events).toEqual([]);
  });

  it("reports a connection it cannot use once, as a Warning, and looks again in a minute", () => {
    const o: EvacuationObserved = {
      evacuation: evacuationWith(),
      source: {
        kind: "unavailable",
        reason: "ConnectionNotFound",
        message: "NatsConnection nats-system/system not found",
      },
      resources: [],
    };
    const d = decideEvacuation(o, NOW);
    expect(condition(d.status, "Ready")).toMatchObject({ status: "False", reason: "ConnectionNotFound" });
    expect(d.events).toEqual([
      { type: "Warning", reason: "ConnectionNotFound", note: "NatsConnection nats-system/system not found" },
    ]);
    expect(d.poll).toEqual({ every: "1m" });
  });
});

describe("a refused move", () => {
  it("reads Ready=False/MoveRefused and stays requested, so it is asked again only after the grace", () => {
    const d = decideEvacuation(observed([inEast("A")]), NOW);
    const refused = withRefusals(d.status, [{ move: { account: "APP", stream: "A" }, why: "no suitable peers" }], NOW);
    expect(condition(refused, "Ready")).toMatchObject({ status: "False", reason: "MoveRefused" });
    expect(refused.requested).toEqual(d.status.requested);
    const soon = decideEvacuation(observed([inEast("A")], { status: refused }), new Date(NOW.getTime() + 5_000));
    expect(soon.moves).toEqual([]);
  });
});

describe("the source view", () => {
  it("takes every server a source server names as holding a stream, and the owner from the marker", () => {
    const servers = new Map([
      ["east-0", ["site:east"]],
      ["east-1", ["site:east"]],
    ]);
    const v = sourceOf(
      "east",
      servers,
      [
        {
          server: "east-0",
          jsz: {
            account_details: [
              {
                name: "APP",
                id: "APP",
                stream_detail: [
                  {
                    name: "ORDERS",
                    cluster: { leader: "east-0", replicas: [{ name: "west-1" }] },
                    config: { metadata: { "jetstream.nats-operator.io/owner": "u-1" } },
                  },
                ],
              },
            ],
          },
        },
        { server: "east-1" },
      ],
      metaOf([{ server: "west-0", meta: { leader: "west-0", replicas: [{ name: "east-1", offline: true }] } }]),
      ["west-1", "west-0"],
    );
    expect(v.silent).toEqual(["east-1"]);
    expect(v.meta).toEqual({ leader: "west-0", offline: ["east-1"] });
    expect(v.streams).toEqual([{ account: "APP", name: "ORDERS", peers: ["east-0", "west-1"], owner: "u-1" }]);
    expect(v.targets).toEqual(["west-0", "west-1"]);
  });
});
