import { describe, expect, it } from "@jest/globals";
import { INVALID_SPAN_CONTEXT, trace, type Span, type Tracer } from "@opentelemetry/api";
import { CloudEvent } from "cloudevents";
import type { OperatorEvent } from "../runtime/event.ts";
import { done } from "../runtime/outcome.ts";
import { withEventSpan } from "./instruments.ts";

// A tracer that keeps the names of the spans it starts (the global one, for this file only).
const names: string[] = [];
const span: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const recording = {
  startSpan(name: string): Span {
    names.push(name);
    return span;
  },
  startActiveSpan(name: string, ...rest: unknown[]): unknown {
    names.push(name);
    const work = rest[rest.length - 1] as (span: Span) => unknown;
    return work(span);
  },
} as unknown as Tracer;
trace.setGlobalTracerProvider({ getTracer: () => recording });

const cloudEvent = (type: string) => new CloudEvent({ id: "1", source: "/test", type, data: {} });

describe("the span of an event", () => {
  it("names the kind it reconciles for an object's event, as controller-runtime's do", async () => {
    const event: OperatorEvent = {
      source: "apiserver",
      action: "update",
      mode: "resource",
      ref: { apiVersion: "jetstream.nats-operator.io/v1alpha1", kind: "NatsStream", namespace: "a", name: "orders" },
      snapshot: undefined,
    };
    names.length = 0;
    await withEventSpan("sync-stream", cloudEvent("dev.knative.apiserver.resource.update"), event, async () =>
      done("synced"),
    );
    expect(names).toEqual(["Reconcile NatsStream"]);
  });

  it("names the function and the event's type for a tick", async () => {
    const event: OperatorEvent = { source: "ping", pingSource: "nats-operator/resync", work: {} };
    names.length = 0;
    await withEventSpan("sync-stream", cloudEvent("dev.knative.sources.ping"), event, async () => done("swept"));
    expect(names).toEqual(["sync-stream dev.knative.sources.ping"]);
  });
});
