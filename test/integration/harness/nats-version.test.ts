// Acceptance: the harness uses nats-server >= 2.15.0 by explicit path, never
// one found on PATH, and refuses older versions loudly.
import { describe, expect, it } from "@jest/globals";
import { isAbsolute } from "node:path";
import {
  assertNatsVersion,
  checkNatsServer,
  compareVersions,
  ensureBinaries,
  MIN_NATS_SERVER_VERSION,
  parseNatsVersion,
} from "../../harness/binaries.ts";

describe("nats-server binary", () => {
  it("is the one built by test/infra/build.sh, at version >= 2.15.0", async () => {
    const bins = await ensureBinaries(() => undefined);
    expect(isAbsolute(bins.natsServer)).toBe(true);
    const version = await checkNatsServer(bins.natsServer);
    expect(compareVersions(version, MIN_NATS_SERVER_VERSION)).toBeGreaterThanOrEqual(0);
    expect(compareVersions(version, "2.15.0")).toBeGreaterThanOrEqual(0);
  }, 600_000);

  it("rejects an older nats-server (such as Debian's 2.9.10)", () => {
    expect(parseNatsVersion("nats-server: v2.9.10")).toBe("2.9.10");
    expect(() => assertNatsVersion("2.9.10", "/usr/sbin/nats-server")).toThrow(/>= 2\.15\.0 is required/);
    expect(() => assertNatsVersion(undefined, "x")).toThrow(/cannot read a version/);
    expect(assertNatsVersion("2.15.2", "x")).toBe("2.15.2");
    expect(compareVersions("2.15.0-beta.1", "2.15.0")).toBe(0);
    expect(compareVersions("2.14.9", "2.15.0")).toBeLessThan(0);
  });
});
