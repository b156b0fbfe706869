import { describe, expect, it } from "@jest/globals";
import { bytesToQuantity, durationToNanos, nanosToDuration, quantityToBytes } from "./units.ts";

describe("durations", () => {
  it("reads Kubernetes durations as nanoseconds", () => {
    expect(durationToNanos("72h")).toBe(72 * 3600e9);
    expect(durationToNanos("1h30m")).toBe(5400e9);
    expect(durationToNanos("0.5s")).toBe(5e8);
    expect(durationToNanos("300ms")).toBe(3e8);
    expect(durationToNanos("0")).toBe(0);
    expect(durationToNanos("soon")).toBeUndefined();
  });

  it("writes nanoseconds the way Go prints a duration", () => {
    expect(nanosToDuration(168 * 3600e9)).toBe("168h0m0s");
    expect(nanosToDuration(120e9)).toBe("2m0s");
    expect(nanosToDuration(1.5e9)).toBe("1.5s");
    expect(nanosToDuration(3e8)).toBe("300ms");
    expect(nanosToDuration(0)).toBe("0s");
  });

  it("round-trips what it writes", () => {
    for (const nanos of [1, 1500, 2e6, 30e9, 2160 * 3600e9])
      expect(durationToNanos(nanosToDuration(nanos))).toBe(nanos);
  });
});

describe("quantities", () => {
  it("reads binary and decimal suffixes, plain numbers and -1", () => {
    expect(quantityToBytes("5Gi")).toBe(5 * 2 ** 30);
    expect(quantityToBytes("64Ki")).toBe(65536);
    expect(quantityToBytes("1k")).toBe(1000);
    expect(quantityToBytes("1e3")).toBe(1000);
    expect(quantityToBytes("-1")).toBe(-1);
    expect(quantityToBytes(2048)).toBe(2048);
    expect(quantityToBytes("lots")).toBeUndefined();
  });

  it("writes bytes with the largest exact binary suffix", () => {
    expect(bytesToQuantity(5 * 2 ** 30)).toBe("5Gi");
    expect(bytesToQuantity(1000)).toBe("1000");
    expect(bytesToQuantity(-1)).toBe("-1");
    expect(bytesToQuantity(0)).toBe("0");
  });
});
