import { describe, expect, it } from "@jest/globals";
import { assignPools, type PoolResource } from "./pools.ts";
import { matchesSelector } from "./selector.ts";

const resource = (stream: string, labels: Record<string, string>): PoolResource => ({
  describe: `NatsStream apps/${stream.toLowerCase()}`,
  stream,
  labels,
});

describe("pools", () => {
  it("give a stream to the first pool selecting its resource, and report the overlap", () => {
    const pools = [
      { name: "hot", selector: { matchLabels: { tier: "hot" } } },
      { name: "eu", selector: { matchExpressions: [{ key: "region", operator: "In" as const, values: ["eu"] }] } },
    ];
    const got = assignPools(
      pools,
      [resource("A", { tier: "hot", region: "eu" }), resource("B", { region: "eu" })],
      ["B", "A", "C"],
    );
    expect(got.pools).toEqual([
      { name: "hot", streams: ["A"] },
      { name: "eu", streams: ["B"] },
      { name: "(default)", streams: ["C"] },
    ]);
    expect(got.overlaps).toEqual([{ stream: "A", resource: "NatsStream apps/a", pools: ["hot", "eu"] }]);
  });

  it("make the whole account one (default) pool when none is declared", () => {
    expect(assignPools([], [], ["X", "Y"]).pools).toEqual([{ name: "(default)", streams: ["X", "Y"] }]);
  });
});

describe("label selectors", () => {
  it("match as the API server does", () => {
    const labels = { tier: "hot", app: "orders" };
    expect(matchesSelector({}, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { tier: "cold" } }, labels)).toBe(false);
    expect(
      matchesSelector({ matchExpressions: [{ key: "app", operator: "NotIn", values: ["billing"] }] }, labels),
    ).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: "zone", operator: "Exists" }] }, labels)).toBe(false);
    expect(matchesSelector({ matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, labels)).toBe(true);
  });
});
