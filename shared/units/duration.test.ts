import { describe, expect, it } from "@jest/globals";
import { durationToNanos } from "./duration.ts";

describe("durations as the API writes them", () => {
  it("reads hours, minutes, seconds and fractions", () => {
    expect(durationToNanos("72h")).toBe(72 * 3600e9);
    expect(durationToNanos("1h30m")).toBe(5400e9);
    expect(durationToNanos("0.5s")).toBe(5e8);
    expect(durationToNanos("300ms")).toBe(3e8);
  });

  it("reads a bare zero and a sign", () => {
    expect(durationToNanos("0")).toBe(0);
    expect(durationToNanos("-1s")).toBe(-1e9);
  });

  it("refuses what is not a duration", () => {
    expect(durationToNanos("soon")).toBeUndefined();
    expect(durationToNanos("")).toBeUndefined();
    expect(durationToNanos("5x")).toBeUndefined();
  });
});
