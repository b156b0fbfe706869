import { describe, expect, it } from "@jest/globals";
import { parseSchedule } from "./cron.ts";

function matches(schedule: string, iso: string): boolean {
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.matches(new Date(iso));
}

describe("parseSchedule", () => {
  it("fires every minute on the minute for * * * * *", () => {
    expect(matches("* * * * *", "2026-12-01T10:07:00Z")).toBe(true);
    expect(matches("* * * * *", "2026-12-01T10:07:30Z")).toBe(false);
  });

  it("honours steps", () => {
    expect(matches("*/10 * * * *", "2026-12-01T10:20:00Z")).toBe(true);
    expect(matches("*/10 * * * *", "2026-12-01T10:25:00Z")).toBe(false);
  });

  it("takes an optional leading seconds field", () => {
    expect(matches("*/15 * * * * *", "2026-12-01T10:07:45Z")).toBe(true);
  });

  it("expands descriptors", () => {
    expect(matches("@hourly", "2026-12-01T10:00:00Z")).toBe(true);
    expect(matches("@hourly", "2026-12-01T10:01:00Z")).toBe(false);
  });

  it("treats 7 as Sunday", () => {
    expect(matches("0 0 * * 7", "2026-11-29T00:00:00Z")).toBe(true);
  });

  it("refuses what it cannot read, with the field", () => {
    expect(parseSchedule("61 * * * *")).toEqual({
      ok: false,
      message: 'schedule "61 * * * *": cannot read field "61"',
    });
    expect(parseSchedule("@every 5m").ok).toBe(false);
  });
});

function lastFiring(schedule: string, iso: string, timeZone?: string): string | undefined {
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.lastFiring(new Date(iso), timeZone)?.toISOString();
}

describe("the last firing of a schedule", () => {
  it("is the moment itself when the schedule fires then", () => {
    expect(lastFiring("*/10 * * * *", "2026-12-01T10:20:00.000Z")).toBe("2026-12-01T10:20:00.000Z");
  });

  it("is the latest firing before the moment otherwise", () => {
    expect(lastFiring("*/10 * * * *", "2026-12-01T10:29:59.900Z")).toBe("2026-12-01T10:20:00.000Z");
    expect(lastFiring("*/5 * * * * *", "2026-12-01T10:00:04.000Z")).toBe("2026-12-01T10:00:00.000Z");
  });

  it("looks back across the minute for a schedule with seconds", () => {
    expect(lastFiring("30 * * * * *", "2026-12-01T10:00:10.000Z")).toBe("2026-12-01T09:59:30.000Z");
  });

  it("reads the schedule in the PingSource's zone", () => {
    // 03:00 in Berlin is 02:00 UTC in winter.
    expect(lastFiring("0 3 * * *", "2026-12-01T12:00:00Z", "Europe/Berlin")).toBe("2026-12-01T02:00:00.000Z");
    expect(lastFiring("0 3 * * *", "2026-12-01T12:00:00Z")).toBe("2026-12-01T03:00:00.000Z");
  });

  it("finds none for a schedule that fires less often than it looks back", () => {
    expect(lastFiring("0 0 1 1 *", "2026-12-01T10:00:00Z")).toBeUndefined();
  });

  it("throws for a zone that does not exist", () => {
    expect(() => lastFiring("* * * * *", "2026-12-01T10:00:00Z", "Mars/Olympus")).toThrow(RangeError);
  });
});
