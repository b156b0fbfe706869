import { describe, expect, it } from "@jest/globals";
import type { RaftGroup, Snapshot } from "./snapshot.ts";
import { advanceRemoval, groupsHeldBy, groupsWithNowhereToGo, RESEND_AFTER_MS, widestStream } from "./removal.ts";

const NOW = new Date("2026-12-02T10:00:00Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const FIVE = ["demo-0", "demo-1", "demo-2", "demo-3", "demo-4"];

const group = (label: string, leader: string, names: string[], behind: string[] = []): RaftGroup => ({
  label,
  leader,
  selfReported: true,
  members: names.map((name) => ({ name, current: !behind.includes(name), offline: false })),
});

function snapshot(groups: RaftGroup[], metaLeader = "demo-0", metaMembers = FIVE): Snapshot {
  return {
    roster: FIVE,
    silent: [],
    metaLeader,
    metaMembers,
    groups: [group("meta", metaLeader, metaMembers), ...groups],
  };
}

describe("a JetStream server leaving the cluster", () => {
  it("waits while the server still holds Raft groups, naming them", () => {
    const seen = snapshot([group("stream ORDERS", "demo-4", ["demo-4", "demo-0", "demo-1"], ["demo-2"])]);
    const progress = advanceRemoval({ name: "demo-4", phase: "Evacuating", since: ago(5_000) }, seen, true, NOW);
    expect(progress).toEqual({
      phase: "Evacuating",
      gate: { waitingFor: "Evacuated", detail: "demo-4 still holds 1 Raft group: stream ORDERS" },
    });
  });

  it("asks again when groups remain on the server and nothing has moved for a while", () => {
    const seen = snapshot([group("stream ORDERS", "demo-0", ["demo-0", "demo-1", "demo-4"])]);
    const early = advanceRemoval(
      { name: "demo-4", phase: "Evacuating", since: ago(RESEND_AFTER_MS - 1) },
      seen,
      true,
      NOW,
    );
    const late = advanceRemoval({ name: "demo-4", phase: "Evacuating", since: ago(RESEND_AFTER_MS) }, seen, true, NOW);
    expect(early.action).toBeUndefined();
    expect(late.action).toEqual({ kind: "evacuate", server: "demo-4" });
  });

  it("waits for the groups that moved to catch up on their new servers", () => {
    const seen = snapshot([group("stream ORDERS", "demo-0", ["demo-0", "demo-1", "demo-2"], ["demo-2"])]);
    const progress = advanceRemoval({ name: "demo-4", phase: "Evacuating", since: ago(60_000) }, seen, true, NOW);
    expect(progress.action).toBeUndefined();
    expect(progress.gate).toEqual({ waitingFor: "Settled", detail: "stream ORDERS behind (demo-2)" });
  });

  it("moves the meta leader off an evacuated server before removing it", () => {
    const seen = snapshot([group("stream ORDERS", "demo-0", ["demo-0", "demo-1", "demo-2"])], "demo-4");
    const progress = advanceRemoval({ name: "demo-4", phase: "Evacuating", since: ago(60_000) }, seen, true, NOW);
    expect(progress.action).toEqual({ kind: "stepdown", server: "demo-4" });
    expect(progress.phase).toBe("Evacuating");
  });

  it("removes an evacuated server from the meta group", () => {
    const seen = snapshot([group("stream ORDERS", "demo-0", ["demo-0", "demo-1", "demo-2"])]);
    const progress = advanceRemoval({ name: "demo-4", phase: "Evacuating", since: ago(60_000) }, seen, true, NOW);
    expect(progress).toEqual({ phase: "Removed", action: { kind: "remove-peer", server: "demo-4" } });
  });

  it("takes a replaced server whose groups span every server out of the meta group without evacuating it", () => {
    const three = { ...snapshot([]), roster: FIVE.slice(0, 3), metaMembers: FIVE.slice(0, 3) };
    const seen = { ...three, groups: [...three.groups, group("stream ORDERS", "demo-0", FIVE.slice(0, 3))] };
    const progress = advanceRemoval({ name: "demo-2", phase: "Evacuating" }, seen, false, NOW);
    expect(progress).toEqual({ phase: "Removed", action: { kind: "remove-peer", server: "demo-2" } });
    expect(groupsWithNowhereToGo(seen, "demo-2")).toEqual(["stream ORDERS"]);
  });

  it("still evacuates a surplus server, whose groups must be moved before it goes", () => {
    const three = { ...snapshot([]), roster: FIVE.slice(0, 3), metaMembers: FIVE.slice(0, 3) };
    const seen = { ...three, groups: [...three.groups, group("stream ORDERS", "demo-0", FIVE.slice(0, 3))] };
    const progress = advanceRemoval({ name: "demo-2", phase: "Evacuating" }, seen, true, NOW);
    expect(progress.action).toEqual({ kind: "evacuate", server: "demo-2" });
  });

  it("deletes the server once the meta leader no longer lists it", () => {
    const seen = snapshot([], "demo-0", FIVE.slice(0, 4));
    const progress = advanceRemoval({ name: "demo-4", phase: "Removed", since: ago(5_000) }, seen, false, NOW);
    expect(progress).toEqual({ phase: "Deleting", action: { kind: "delete", server: "demo-4", surplus: false } });
  });

  it("asks again for the removal from the meta group when it has not taken effect", () => {
    const seen = snapshot([]);
    expect(advanceRemoval({ name: "demo-4", phase: "Removed", since: ago(5_000) }, seen, true, NOW)).toEqual({
      phase: "Removed",
      gate: { waitingFor: "Removed", detail: "demo-4 is still in the meta group" },
    });
    expect(
      advanceRemoval({ name: "demo-4", phase: "Removed", since: ago(RESEND_AFTER_MS) }, seen, true, NOW).action,
    ).toEqual({ kind: "remove-peer", server: "demo-4" });
  });

  it("does nothing while the NATS cluster cannot be observed", () => {
    expect(advanceRemoval({ name: "demo-4", phase: "Removed", since: ago(60_000) }, undefined, true, NOW)).toEqual({
      phase: "Removed",
      gate: { waitingFor: "Settled", detail: "the NATS cluster is not observed" },
    });
  });

  it("counts the groups a server leads or follows in, but not the meta group", () => {
    const seen = snapshot([
      group("stream A", "demo-3", ["demo-3", "demo-0"]),
      group("consumer A/C", "demo-0", ["demo-0", "demo-3"]),
      group("stream B", "demo-0", ["demo-0"]),
    ]);
    expect(groupsHeldBy(seen, "demo-3")).toEqual(["stream A", "consumer A/C"]);
  });

  it("finds the stream with the most replicas", () => {
    const seen = snapshot([
      group("stream A", "demo-0", ["demo-0"]),
      group("stream B", "demo-1", ["demo-1", "demo-2", "demo-3"]),
      group("consumer B/C", "demo-1", FIVE),
    ]);
    expect(widestStream(seen)).toEqual({ label: "B", replicas: 3 });
  });
});
