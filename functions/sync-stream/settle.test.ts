import { describe, expect, it } from "@jest/globals";
import { waitsForServers } from "./connect-wait.ts";
import { inBatches } from "../../shared/runtime/index.ts";
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

describe("a connection waiting for its servers", () => {
  const ready = (status: "True" | "False", since: string) => [
    {
      type: "Ready",
      status,
      reason: status === "True" ? "Connected" : "ConnectFailed",
      message: "",
      lastTransitionTime: since,
    },
  ];
  const now = new Date("2026-12-05T10:00:00Z");

  it("is re-checked on the settle tick for its first ten minutes without them", () => {
    expect(waitsForServers(ready("False", "2026-12-05T09:50:01Z"), now)).toBe(true);
    expect(waitsForServers(ready("False", "2026-12-05T09:50:00Z"), now)).toBe(false);
  });

  it("is not re-checked once Ready, or before its first check", () => {
    expect(waitsForServers(ready("True", "2026-12-05T09:59:00Z"), now)).toBe(false);
    expect(waitsForServers(undefined, now)).toBe(false);
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
