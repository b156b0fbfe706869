import { describe, expect, it } from "@jest/globals";
import { formatBytes, parseBytes } from "./quantity.ts";

describe("quantities as whole bytes", () => {
  it("reads binary and decimal suffixes, exponents and plain numbers", () => {
    expect(parseBytes("4Gi")).toBe(4n << 30n);
    expect(parseBytes("500M")).toBe(500_000_000n);
    expect(parseBytes("1e9")).toBe(1_000_000_000n);
    expect(parseBytes("64Ki")).toBe(65_536n);
    expect(parseBytes(1024)).toBe(1024n);
  });

  it("rounds fractions up", () => {
    expect(parseBytes("1.5Ki")).toBe(1536n);
    expect(parseBytes("500m")).toBe(1n);
    expect(parseBytes(0.2)).toBe(1n);
  });

  it("refuses what is not a quantity", () => {
    expect(parseBytes(undefined)).toBeUndefined();
    expect(parseBytes("lots")).toBeUndefined();
    expect(parseBytes("5Xi")).toBeUndefined();
    expect(parseBytes(-1)).toBeUndefined();
  });

  it("writes the shortest exact binary form, or plain digits", () => {
    expect(formatBytes(3_221_225_472n)).toBe("3Gi");
    expect(formatBytes(65_536n)).toBe("64Ki");
    expect(formatBytes(1000n)).toBe("1000");
    expect(formatBytes(0n)).toBe("0");
  });
});
