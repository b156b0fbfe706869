import { describe, expect, it } from "@jest/globals";
import { inBatches } from "./in-batches.ts";
import { settleSchedule, settleTickOf } from "./settle.ts";

describe("settle ticks", () => {
  it("reads the namespace a settle tick carries, falling back to the PingSource's namespace", () => {
    expect(settleTickOf({ check: "settle", namespace: "payments" }, undefined)).toBe("payments");
    expect(settleTickOf({ check: "settle" }, "team/sync-stream-settle")).toBe("team");
    expect(settleTickOf({ check: "drift", namespace: "payments" }, undefined)).toBeUndefined();
  });

  it("re-reads unsettled groups every fifteen seconds", () => {
    expect(settleSchedule).toEqual({ name: "sync-stream-settle", cron: "*/15 * * * * *" });
  });
});

describe("batches", () => {
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
