import { describe, expect, it } from "@jest/globals";
import { NEW, OLD, input, server } from "../../../test/fixtures/cluster/rollout.ts";
import { decideRollout } from "./state-machine.ts";

const reloading = (ordinal: number) => server(ordinal, OLD, { reloading: true, restartReason: undefined });
const progressing = (decision: ReturnType<typeof decideRollout>) =>
  decision.conditions.find((c) => c.type === "Progressing");

describe("rollout plan beside reloads", () => {
  it("takes no step for servers whose reload is pending, says ReloadPending and keeps polling", () => {
    const decision = decideRollout(input([reloading(0), reloading(1), server(2, NEW)]));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout).toBeUndefined();
    expect(progressing(decision)).toEqual({
      type: "Progressing",
      status: "True",
      reason: "ReloadPending",
      message: `reloading demo-0, demo-1 onto revision ${NEW}`,
    });
    expect(decision.polling).toBe(true);
  });

  it("still restarts a restart-only server one at a time beside a pending reload (C17)", () => {
    const decision = decideRollout(input([reloading(0), server(1), server(2)]));
    expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
    expect(decision.rollout?.pending).toEqual(["demo-1"]);
  });

  it("does not force a reloading server through the gate", () => {
    const decision = decideRollout(input([reloading(0), server(1, NEW), server(2, NEW)], { forceStep: "demo-0" }));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.clearForceStep).toBe(true);
  });
});
