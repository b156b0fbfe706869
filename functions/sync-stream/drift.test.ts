import { describe, expect, it } from "@jest/globals";
import { inBatches, schedules, tickOf } from "./drift.ts";

describe("ticks and schedules", () => {
  it("reads the check and namespace a tick carries, falling back to the PingSource's namespace", () => {
    expect(tickOf({ check: "drift", namespace: "payments" }, undefined)).toEqual({
      check: "drift",
      namespace: "payments",
    });
    expect(tickOf({ check: "settle" }, "team/sync-stream-settle")).toEqual({ check: "settle", namespace: "team" });
    expect(tickOf({ check: "balance" }, "team/x")).toBeUndefined();
  });

  it("re-checks drift every ten minutes and unsettled groups every fifteen seconds", () => {
    expect(schedules.drift).toEqual({ name: "sync-stream-drift", cron: "*/10 * * * *" });
    expect(schedules.settle).toEqual({ name: "sync-stream-settle", cron: "*/15 * * * * *" });
  });

  it("runs at most the given number of checks at once, keeping results in order", async () => {
    let running = 0;
    let peak = 0;
    const results = await inBatches([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return n * 2;
    });
    expect(results).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(peak).toBe(3);
  });
});
