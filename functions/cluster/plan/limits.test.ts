import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { deriveLimits, limitsStatus } from "./limits.ts";

describe("store limits", () => {
  it("derive a 3Gi memory store and a 19Gi file store from a 4Gi limit and a 20Gi claim", () => {
    expect(limitsStatus(deriveLimits(demoCluster().spec))).toEqual({ maxMemoryStore: "3Gi", maxFileStore: "19Gi" });
  });

  it("derive a 192Mi memory store from a 256Mi limit", () => {
    const spec = demoCluster({ resources: { limits: { memory: "256Mi" } } }).spec;
    expect(limitsStatus(deriveLimits(spec)).maxMemoryStore).toBe("192Mi");
  });

  it("set GOMEMLIMIT to 90% of the memory limit", () => {
    expect(deriveLimits(demoCluster().spec).goMemLimit).toBe((4n * 1024n ** 3n * 9n) / 10n);
  });

  it("let jetstream.limits override either derived value", () => {
    const base = demoCluster().spec;
    const spec = { ...base, jetstream: { ...base.jetstream, limits: { maxMemoryStore: "1Gi", maxFileStore: "5Gi" } } };
    expect(limitsStatus(deriveLimits(spec))).toEqual({ maxMemoryStore: "1Gi", maxFileStore: "5Gi" });
  });

  it("leave store limits out without JetStream", () => {
    const limits = deriveLimits(demoCluster({ jetstream: undefined }).spec);
    expect(limits.maxMemoryStore).toBeUndefined();
    expect(limits.goMemLimit).toBeDefined();
  });
});
