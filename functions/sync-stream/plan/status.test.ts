import { describe, expect, it } from "@jest/globals";
import { isUnsettled, nextStatus, serverStatusOf } from "./status.ts";

const now = new Date("2026-12-02T10:00:00.000Z");
const later = new Date("2026-12-02T10:10:00.000Z");
const types = (s: { conditions?: { type: string; status: string; reason: string }[] }) =>
  (s.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`);

describe("object status", () => {
  const synced = {
    kind: "synced" as const,
    what: "stream ORDERS",
    origin: "Created" as const,
    uid: "u1",
    drift: undefined,
    server: { leader: "n1" },
  };

  it("shows a healthy created stream as story 1 expects: Ready/Synced, Synced/MatchesSpec, ownership Created", () => {
    const s = nextStatus(undefined, synced, 1, now);
    expect(types(s)).toEqual(["Ready=True/Synced", "Synced=True/MatchesSpec"]);
    expect(s.conditions?.[1]?.message).toBe("server config matches spec as of last check");
    expect(s.ownership).toEqual({ origin: "Created", uid: "u1" });
    expect(s.lastSyncedTime).toBe("2026-12-02T10:00:00Z");
  });

  it("reports drift once as Synced=False/DriftCorrected naming the keys", () => {
    const s = nextStatus(undefined, { ...synced, drift: ["subjects", "max_age"] }, 1, now);
    expect(s.conditions?.[1]).toMatchObject({
      status: "False",
      reason: "DriftCorrected",
      message: "reapplied spec over drift in subjects, max_age",
    });
  });

  it("keeps a stream moving between NATS clusters Ready=True/Synced, with Synced=False/Moving counting new replicas (J18, J21)", () => {
    const transfer = {
      from: "east",
      to: "west",
      replicas: [
        { name: "west-0", current: true },
        { name: "west-1", current: true },
        { name: "west-2", current: false, lag: 18231 },
      ],
    };
    const s = nextStatus(undefined, { ...synced, transfer }, 2, now);
    expect(types(s)).toEqual(["Ready=True/Synced", "Synced=False/Moving"]);
    expect(s.conditions?.[1]?.message).toBe("moving to NATS cluster west; 2 of 3 new replicas current");
  });

  it("adds Adopted=True/FoundUnowned for an adopted object", () => {
    expect(types(nextStatus(undefined, { ...synced, origin: "Adopted" }, 1, now))).toContain(
      "Adopted=True/FoundUnowned",
    );
  });

  it("goes Terminal with Ready=False/Terminal, drops Synced, and schedules a recheck under Retry", () => {
    const before = nextStatus(undefined, synced, 1, now);
    const s = nextStatus(before, { kind: "terminal", reason: "ExistsUnowned", message: "m", nextCheck: later }, 2, now);
    expect(types(s)).toEqual(["Ready=False/Terminal", "Terminal=True/ExistsUnowned"]);
    expect(s.nextCheckTime).toBe("2026-12-02T10:10:00Z");
  });

  it("clears Terminal and nextCheckTime once synced again", () => {
    const terminal = nextStatus(
      undefined,
      { kind: "terminal", reason: "ExistsUnowned", message: "m", nextCheck: later },
      1,
      now,
    );
    const s = nextStatus(terminal, synced, 1, later);
    expect(types(s)).toEqual(["Ready=True/Synced", "Synced=True/MatchesSpec"]);
    expect(s.nextCheckTime).toBeUndefined();
  });

  it("shows a missing grant as ReferencesResolved=False/NoGrant and Ready=False/ReferenceNotPermitted", () => {
    const s = nextStatus(
      undefined,
      { kind: "connection", reason: "ReferenceNotPermitted", message: "m", noGrant: true },
      1,
      now,
    );
    expect(types(s)).toEqual(["Ready=False/ReferenceNotPermitted", "ReferencesResolved=False/NoGrant"]);
  });

  it("keeps lastTransitionTime when a condition's status does not change", () => {
    const first = nextStatus(undefined, synced, 1, now);
    const second = nextStatus(first, synced, 1, later);
    expect(second.conditions?.[0]?.lastTransitionTime).toBe(first.conditions?.[0]?.lastTransitionTime);
  });

  it("reads leader, replicas, current members, messages and bytes from stream info; no messages on an empty stream", () => {
    const info = {
      created: "2026-12-02T10:03:42.409805104Z",
      cluster: {
        leader: "n2",
        replicas: [
          { name: "n1", current: true, active: 1 },
          { name: "n3", current: false, lag: 4 },
        ],
      },
      state: { messages: 0, bytes: 0 },
    };
    expect(serverStatusOf(info, true)).toEqual({
      created: "2026-12-02T10:03:42Z",
      leader: "n2",
      replicas: [
        { name: "n1", current: true },
        { name: "n3", current: false, lag: 4 },
      ],
      // The leader and n1: what `kubectl get` prints as Current.
      currentReplicas: 2,
      bytes: "0",
    });
  });

  it("calls a Raft group unsettled without a leader or with a member behind, and never a server outside any cluster", () => {
    expect(isUnsettled({ cluster: { leader: "n1", replicas: [{ name: "n2", current: true }] } })).toBe(false);
    expect(isUnsettled({ cluster: { replicas: [{ name: "n2", current: true }] } })).toBe(true);
    expect(isUnsettled({ cluster: { leader: "n1", replicas: [{ name: "n2", current: false }] } })).toBe(true);
    expect(isUnsettled({})).toBe(false);
  });
});
