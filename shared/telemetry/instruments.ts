import {
  context,
  isSpanContextValid,
  metrics,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type SpanContext,
} from "@opentelemetry/api";
import type { CloudEvent } from "cloudevents";
import type { OperatorEvent } from "../runtime/event.ts";
import type { Outcome } from "../runtime/outcome.ts";
import { redactCredentials } from "./redact.ts";

// Without a registered SDK these are the API's no-op implementations, so
// instrumenting costs nothing unless OTEL_* configuration asks for export.
const tracer = () => trace.getTracer("nats-operator");
const meter = () => metrics.getMeter("nats-operator");

let reconciles: ReturnType<ReturnType<typeof meter>["createCounter"]> | undefined;
let durations: ReturnType<ReturnType<typeof meter>["createHistogram"]> | undefined;

const traceparentFormat = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The span context a W3C `traceparent` names (`00-<trace id>-<span id>-<flags>`),
 * or undefined when the value is missing or malformed, or names the all-zero id.
 */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  const match = typeof value === "string" ? traceparentFormat.exec(value.trim()) : null;
  if (!match || match[1] === "ff") return undefined;
  const spanContext: SpanContext = {
    traceId: match[2] as string,
    spanId: match[3] as string,
    traceFlags: parseInt(match[4] as string, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * The context the event's trace continues from. With an SDK, its propagator
 * reads the extensions; without one the API's propagator is a no-op, so the
 * `traceparent` is read here and the no-op span carries it on.
 */
function parentOf(ce: CloudEvent<unknown>): Context {
  const carrier: Record<string, string> = {};
  if (typeof ce["traceparent"] === "string") carrier["traceparent"] = ce["traceparent"];
  if (typeof ce["tracestate"] === "string") carrier["tracestate"] = ce["tracestate"];
  const extracted = propagation.extract(context.active(), carrier);
  if (trace.getSpanContext(extracted) !== undefined) return extracted;
  const remote = parseTraceparent(ce["traceparent"]);
  return remote ? trace.setSpanContext(extracted, remote) : extracted;
}

/**
 * Runs `work` in a span per event, continuing the trace the CloudEvent's
 * `traceparent` extension carries. `work` receives the trace id so log lines
 * can name it, or undefined when there is none (no exporter and no
 * `traceparent`): log lines then name no trace rather than the all-zero id.
 */
export async function withEventSpan(
  functionName: string,
  ce: CloudEvent<unknown>,
  event: OperatorEvent,
  work: (traceId: string | undefined) => Promise<Outcome>,
): Promise<Outcome> {
  const parent = parentOf(ce);
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
  // An object's event names what it reconciles, as controller-runtime's spans do; a tick names the function.
  const name = event.source === "apiserver" ? `Reconcile ${event.ref.kind}` : `${functionName} ${ce.type}`;
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      const spanContext = span.spanContext();
      const outcome = await work(isSpanContextValid(spanContext) ? spanContext.traceId : undefined);
      span.setAttribute("nats_operator.outcome", outcome.kind);
      if (outcome.kind === "retry" || outcome.kind === "malformed" || outcome.kind === "refused")
        span.setStatus({ code: SpanStatusCode.ERROR, message: redactCredentials(outcome.message) });
      return outcome;
    } finally {
      span.end();
    }
  });
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
