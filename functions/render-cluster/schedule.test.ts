import { describe, expect, it } from "@jest/globals";
import { yearlyCron } from "./schedule.ts";

describe("route certificate renewal tick", () => {
  it("fires once a year, the minute after the certificate becomes due", () => {
    expect(yearlyCron(new Date("2027-08-01T13:45:20Z"))).toBe("46 13 1 8 *");
  });
});
