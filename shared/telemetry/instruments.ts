import { context, metrics, propagation, SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import type { CloudEvent } from "cloudevents";
import type { OperatorEvent } from "../runtime/event.ts";
import type { Outcome } from "../runtime/outcome.ts";

// Without a registered SDK these are the API's no-op implementations, so
// instrumenting costs nothing unless OTEL_* configuration asks for export.
const tracer = () => trace.getTracer("nats-operator");
const meter = () => metrics.getMeter("nats-operator");

let reconciles: ReturnType<ReturnType<typeof meter>["createCounter"]> | undefined;
let durations: ReturnType<ReturnType<typeof meter>["createHistogram"]> | undefined;

/**
 * Runs `work` in a span per event, continuing the trace the CloudEvent's
 * `traceparent` extension carries. `work` receives the trace id so log lines
 * can name it.
 */
export async function withEventSpan(
  functionName: string,
  ce: CloudEvent<unknown>,
  event: OperatorEvent,
  work: (traceId: string) => Promise<Outcome>,
): Promise<Outcome> {
  const carrier: Record<string, string> = {};
  if (typeof ce["traceparent"] === "string") carrier["traceparent"] = ce["traceparent"];
  if (typeof ce["tracestate"] === "string") carrier["tracestate"] = ce["tracestate"];
  const parent = propagation.extract(context.active(), carrier);
  const attributes: Attributes = {
    "faas.name": functionName,
    "cloudevents.event_id": ce.id,
    "cloudevents.event_type": ce.type,
  };
  if (event.source === "apiserver") {
    attributes["k8s.namespace.name"] = event.ref.namespace;
    attributes["nats_operator.object.kind"] = event.ref.kind;
    attributes["nats_operator.object.name"] = event.ref.name;
  }
  return tracer().startActiveSpan(
    `${functionName} ${ce.type}`,
    { kind: SpanKind.CONSUMER, attributes },
    parent,
    async (span) => {
      try {
        const outcome = await work(span.spanContext().traceId);
        span.setAttribute("nats_operator.outcome", outcome.kind);
        if (outcome.kind === "retry" || outcome.kind === "malformed")
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
        return outcome;
      } finally {
        span.end();
      }
    },
  );
}

/** Counts a reconcile by function, kind and result, and records how long it took. */
export function recordReconcile(functionName: string, kind: string, result: Outcome["kind"], millis: number): void {
  reconciles ??= meter().createCounter("nats_operator_reconciles_total", {
    description: "Events handled, by function, kind and result",
  });
  durations ??= meter().createHistogram("nats_operator_reconcile_duration_seconds", {
    description: "Time to handle one event",
    unit: "s",
  });
  const attributes = { function: functionName, kind, result };
  reconciles.add(1, attributes);
  durations.record(millis / 1000, attributes);
}
