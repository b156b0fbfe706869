import { describe, expect, it } from "@jest/globals";
import { setCondition, setConditions } from "./conditions.ts";

const t0 = new Date("2026-12-01T10:00:00Z");
const t1 = new Date("2026-12-01T11:00:00Z");
const ready = {
  type: "Ready",
  status: "True",
  reason: "AllServersReady",
  message: "3/3 ready",
  observedGeneration: 1,
} as const;

describe("setCondition", () => {
  it("adds a condition stamped with the time of the change", () => {
    expect(setCondition([], ready, t0)).toEqual([{ ...ready, lastTransitionTime: t0.toISOString() }]);
  });

  it("keeps lastTransitionTime when only reason or message change", () => {
    const before = setCondition([], ready, t0);
    const after = setCondition(before, { ...ready, message: "still ready", observedGeneration: 2 }, t1);
    expect(after[0]?.lastTransitionTime).toBe(t0.toISOString());
    expect(after[0]?.message).toBe("still ready");
  });

  it("moves lastTransitionTime when the status changes", () => {
    const before = setCondition([], ready, t0);
    const after = setCondition(before, { ...ready, status: "False", reason: "QuorumUnavailable" }, t1);
    expect(after[0]?.lastTransitionTime).toBe(t1.toISOString());
  });

  it("leaves other conditions as they were, in order", () => {
    const before = setConditions(
      [],
      [ready, { type: "Settled", status: "True", reason: "AllGroupsCurrent", message: "" }],
      t0,
    );
    const after = setCondition(before, { ...ready, status: "False", reason: "QuorumUnavailable" }, t1);
    expect(after.map((c) => c.type)).toEqual(["Ready", "Settled"]);
    expect(after[1]).toEqual(before[1]);
  });

  it("gives an identical list when nothing changed, so no status write follows", () => {
    const before = setCondition([], ready, t0);
    expect(setCondition(before, ready, t1)).toEqual(before);
  });
});
