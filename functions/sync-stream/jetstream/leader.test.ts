import { describe, expect, it } from "@jest/globals";
import { awaitsLeader, withLeader } from "./leader.ts";
import type { ServerObject } from "../types.ts";
import { isUnsettled, serverStatusOf } from "../plan/status.ts";

const leaderless: ServerObject = {
  config: { name: "ORDERS" },
  info: { cluster: { name: "c1", replicas: [{ name: "n2", current: false }] } },
};
const led: ServerObject = {
  config: { name: "ORDERS" },
  info: {
    cluster: {
      name: "c1",
      leader: "n1",
      replicas: [
        { name: "n2", current: true },
        { name: "n3", current: true },
      ],
    },
  },
};
const noPause = async () => {};

describe("a replicated group whose leader is not elected yet", () => {
  it("awaits a leader when a clustered server's info names none, and never on a server outside any cluster", () => {
    expect(awaitsLeader(leaderless.info)).toBe(true);
    expect(awaitsLeader(led.info)).toBe(false);
    expect(awaitsLeader({})).toBe(false);
  });

  it("is re-read until its leader appears, so the Synced status names the leader", async () => {
    const reads = [leaderless, led];
    let calls = 0;
    const after = await withLeader(leaderless, async () => reads[calls++], { pause: noPause });
    expect(calls).toBe(2);
    expect(serverStatusOf(after.info, true).leader).toBe("n1");
    expect(isUnsettled(after.info)).toBe(false);
  });

  it("is not re-read when the info already names the leader", async () => {
    let calls = 0;
    await withLeader(
      led,
      async () => {
        calls++;
        return led;
      },
      { pause: noPause },
    );
    expect(calls).toBe(0);
  });

  it("is re-read a bounded number of times, then left unsettled for the settle schedule", async () => {
    let calls = 0;
    const pauses: number[] = [];
    const after = await withLeader(
      leaderless,
      async () => {
        calls++;
        return leaderless;
      },
      { reads: 3, pauseMs: 10, pause: async (ms) => void pauses.push(ms) },
    );
    expect(calls).toBe(3);
    expect(pauses).toEqual([10, 10, 10]);
    expect(isUnsettled(after.info)).toBe(true);
  });

  it("keeps what it last read when a re-read fails or finds the object gone", async () => {
    expect(await withLeader(leaderless, async () => Promise.reject(new Error("timeout")), { pause: noPause })).toBe(
      leaderless,
    );
    expect(await withLeader(leaderless, async () => undefined, { pause: noPause })).toBe(leaderless);
  });
});
