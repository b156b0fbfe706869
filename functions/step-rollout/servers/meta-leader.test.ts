// The meta leader in another NATS cluster of the supercluster (C23, C37, H12): which server is
// asked, and what its answer makes of the gate.
import { describe, expect, it } from "@jest/globals";
import { jszOf, reportsOf } from "../../../test/fixtures/cluster/jsz.ts";
import { evaluateGate } from "../rollout/gate.ts";
import { judgeSettled, mergeSnapshot, type ServerReport } from "../rollout/snapshot.ts";
import { remoteMetaLeader } from "./meta-leader.ts";

const OURS = new Set(["demo-0", "demo-1", "demo-2"]);
const REVISION = "aaaaaaaaaa";
/** demo's three servers, all following west-0, which leads the meta group from cluster west. */
const followers = reportsOf({ metaLeader: "west-0", streamLeader: "demo-0", revision: REVISION });
/** west-0's own JSZ: its meta peers are west's servers and those of demo it lists. */
const leaderListing = (demo: string[], behind: string[] = []): ServerReport => ({
  server: "west-0",
  jsz: jszOf("west-0", { metaLeader: "west-0", streamLeader: "west-0", names: ["west-0", "west-1", ...demo], behind }),
});
const servers = [...OURS].map((name) => ({
  name,
  planned: true,
  exists: true,
  onTarget: true,
  podReady: true,
  reportedRevision: REVISION,
}));

describe("the meta leader of another NATS cluster (C23)", () => {
  it("is the one server asked when every server of ours follows it", () => {
    expect(remoteMetaLeader(followers, OURS)).toBe("west-0");
  });

  it("is not asked when a server of ours leads, or ours name different leaders", () => {
    expect(remoteMetaLeader(reportsOf({ metaLeader: "demo-1", streamLeader: "demo-0" }), OURS)).toBeUndefined();
    const split = followers.map((r, i) =>
      i === 0 && r.jsz ? { ...r, jsz: { ...r.jsz, meta_cluster: { leader: "west-1" } } } : r,
    );
    expect(remoteMetaLeader(split, OURS)).toBeUndefined();
  });

  it("holds the gate while it does not list a replaced server of ours as a peer again (C37)", () => {
    const snapshot = mergeSnapshot([...OURS], followers, "clustered", leaderListing(["demo-0", "demo-2"]));
    expect(snapshot?.metaLeader).toBe("west-0");
    expect(snapshot?.metaMembers).toEqual(["demo-0", "demo-2"]);
    expect(evaluateGate(servers, snapshot, true, REVISION)).toEqual({
      waitingFor: "Settled",
      detail: "demo-1 is not in the meta group",
    });
  });

  it("opens it once it lists every server of ours, each current", () => {
    const snapshot = mergeSnapshot([...OURS], followers, "clustered", leaderListing(["demo-0", "demo-1", "demo-2"]));
    expect(snapshot && judgeSettled(snapshot).settled).toBe(true);
    expect(evaluateGate(servers, snapshot, true, REVISION)).toBeUndefined();
  });

  it("reads a server of ours the leader counts behind as catching up", () => {
    const snapshot = mergeSnapshot(
      [...OURS],
      followers,
      "clustered",
      leaderListing(["demo-0", "demo-1", "demo-2"], ["demo-2"]),
    );
    expect(snapshot && judgeSettled(snapshot)).toMatchObject({ settled: false, reason: "GroupsCatchingUp" });
  });

  it("unanswered, leaves the meta group judged from the followers' view", () => {
    const snapshot = mergeSnapshot([...OURS], followers, "clustered");
    expect(snapshot?.metaMembers).toEqual(["demo-0", "demo-1", "demo-2"]);
    expect(evaluateGate(servers, snapshot, true, REVISION)).toBeUndefined();
  });
});
