import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import type { NatsSystemBalancer, NatsSystemBalancerStatus } from "../system/resource.ts";
import { countHeldPass, HELD_PASSES } from "./held-passes.ts";

/** Collects on demand, as an exporter's reader would at export time. */
class InMemoryReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

let reader: InMemoryReader;
let provider: MeterProvider;
beforeEach(() => {
  reader = new InMemoryReader();
  provider = new MeterProvider({ readers: [reader] });
});
afterEach(() => provider.shutdown());

const balancer: NatsSystemBalancer = {
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsSystemBalancer",
  metadata: { name: "even", namespace: "nats-system" },
  spec: { connectionRef: { name: "system" } },
};
const holding = (status: "True" | "False", reason: string): NatsSystemBalancerStatus => ({
  conditions: [{ type: "Holding", status, reason, message: "", lastTransitionTime: "2026-12-03T10:00:00Z" }],
});

async function counts(): Promise<{ value: number; reason: unknown }[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === HELD_PASSES);
  return (metric?.dataPoints ?? []).map((p) => ({ value: p.value as number, reason: p.attributes["reason"] }));
}

describe("nats_operator.balancer.held_passes", () => {
  it("counts each pass that ends Holding, by reason, and not the passes that move", async () => {
    const meter = provider.getMeter("test");
    countHeldPass(balancer, holding("True", "Unsettled"), meter);
    countHeldPass(balancer, holding("True", "Unsettled"), meter);
    countHeldPass(balancer, holding("True", "MovePending"), meter);
    countHeldPass(balancer, holding("False", "Settled"), meter);
    expect(await counts()).toEqual([
      { value: 2, reason: "Unsettled" },
      { value: 1, reason: "MovePending" },
    ]);
  });

  it("counts a NatsBalancer's held passes under its own kind", async () => {
    const meter = provider.getMeter("test");
    countHeldPass({ ...balancer, kind: "NatsBalancer" }, holding("True", "YieldingToSystemBalancer"), meter);
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === HELD_PASSES);
    expect(metric?.dataPoints.map((p) => p.attributes)).toEqual([
      { kind: "NatsBalancer", namespace: "nats-system", name: "even", reason: "YieldingToSystemBalancer" },
    ]);
  });
});
