import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { consumersMoved, movingMessage, transferOf } from "./transfer.ts";

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/jetstream/${name}`, import.meta.url), "utf8")) as T;

describe("stream transfer between NATS clusters", () => {
  const moving = fixture<Record<string, unknown>>("stream-moving.json");

  it("reads from, to, start and the new replicas from cluster.desired", () => {
    expect(transferOf(moving)).toEqual({
      from: "east",
      to: "west",
      started: "2026-12-02T10:35:33Z",
      replicas: [{ name: "west-0", current: true }],
    });
  });

  it("sees no transfer without desired state or when the cluster stays the same", () => {
    expect(transferOf({ cluster: { name: "west", leader: "west-0" } })).toBeUndefined();
    const cluster = moving.cluster as Record<string, unknown>;
    expect(
      transferOf({ cluster: { ...cluster, desired: { ...(cluster.desired as object), name: "east" } } }),
    ).toBeUndefined();
  });

  it("counts a consumer as moved once nothing is in flight for it and it is led from the target", () => {
    expect(consumersMoved(fixture("consumers-moving.json"), "west")).toEqual({ moved: 1, total: 2 });
  });

  it("says where the stream goes and how many new replicas are current", () => {
    expect(
      movingMessage({
        to: "west",
        replicas: [
          { name: "w0", current: true },
          { name: "w1", current: false },
        ],
      }),
    ).toBe("moving to NATS cluster west; 1 of 2 new replicas current");
  });
});
