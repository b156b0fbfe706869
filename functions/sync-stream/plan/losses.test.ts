import { describe, expect, it } from "@jest/globals";
import { streamDefaults } from "../config/stream-fields.ts";
import { discardedBy, recordedLoss, restartPosition } from "./losses.ts";

describe("what a drift repair discards", () => {
  const server = { max_age: 72 * 3600e9, max_msgs_per_subject: -1, max_bytes: -1, num_replicas: 1 };

  it("names a shorter age and a per-subject limit from none", () => {
    const config = { ...server, max_age: 3600e9, max_msgs_per_subject: 10 };
    expect(discardedBy(server, config, streamDefaults(server))).toEqual([
      "lowering maxMsgsPerSubject from no limit to 10 discards the oldest messages of each subject beyond 10",
      "lowering maxAge from 72h0m0s to 1h0m0s discards the messages older than 1h0m0s",
    ]);
  });

  it("names nothing for a limit removed or raised, or one more replica", () => {
    const config = { ...server, max_age: 0, max_bytes: 2 ** 30, num_replicas: 3 };
    expect(discardedBy({ ...server, max_bytes: 2 ** 20 }, config, streamDefaults(server))).toEqual([]);
  });

  it("takes a key the repair resets as the server default", () => {
    const { num_replicas: _, ...reset } = { ...server, num_replicas: 5 };
    expect(discardedBy({ ...server, num_replicas: 2 }, reset, streamDefaults(server))).toEqual([
      "lowering replicas from 2 to 1 discards one copy of every message",
    ]);
  });
});

describe("where a recreated consumer restarts", () => {
  it("reads the deliver policy of its config", () => {
    expect(restartPosition({})).toBe("the first message of the stream (deliverPolicy All)");
    expect(restartPosition({ deliver_policy: "new" })).toBe(
      "messages published after it is recreated (deliverPolicy New)",
    );
    expect(restartPosition({ deliver_policy: "by_start_time", opt_start_time: "2026-12-01T00:00:00Z" })).toBe(
      "the first message at or after 2026-12-01T00:00:00Z (deliverPolicy ByStartTime)",
    );
  });
});

describe("a loss already recorded", () => {
  const lost = { at: "2026-12-06T10:00:00Z", lastKnown: { messages: 1 } };
  it("is this gap's when found after the last sync, and an older one otherwise", () => {
    expect(recordedLoss({ lastSyncedTime: "2026-12-06T09:00:00Z", lost })).toBe(lost);
    expect(recordedLoss({ lastSyncedTime: "2026-12-06T10:00:00Z", lost })).toBeUndefined();
    expect(recordedLoss({ lastSyncedTime: "2026-12-06T09:00:00Z" })).toBeUndefined();
  });

  it("is this gap's while Ready says the stream is held, even found in the second of the last sync", () => {
    const held = {
      type: "Ready",
      status: "False" as const,
      reason: "StreamLost" as const,
      message: "",
      lastTransitionTime: "2026-12-06T10:00:00Z",
    };
    expect(recordedLoss({ lastSyncedTime: "2026-12-06T10:00:00Z", lost, conditions: [held] })).toBe(lost);
  });
});
