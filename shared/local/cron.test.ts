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
