import { randomUUID } from "node:crypto";
import { operatorVersion } from "./version.ts";
import { metrics } from "@opentelemetry/api";
import { registerStatusGauges } from "./status-gauges.ts";

/** Stops the exporter, flushing what is buffered; a no-op when nothing was started. */
export type TelemetryShutdown = () => Promise<void>;

const exporterVariables = [
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
];

/** True when the standard OTEL_* environment names an exporter. */
export function telemetryRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === "true") return false;
  return exporterVariables.some((name) => {
    const value = env[name];
    return value !== undefined && value !== "" && value !== "none";
  });
}

/**
 * Starts OpenTelemetry export of traces and metrics when, and only when, the
 * environment asks for it. The SDK is imported lazily: most runs export
 * nothing and should not pay its start-up cost.
 */
export async function startTelemetry(serviceName: string): Promise<TelemetryShutdown> {
  if (!telemetryRequested()) return async () => {};
  const [{ NodeSDK }, { resourceFromAttributes }, { PeriodicExportingMetricReader }, { OTLPMetricExporter }] =
    await Promise.all([
      import("@opentelemetry/sdk-node"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/exporter-metrics-otlp-http"),
    ]);
  const metricsWanted = (process.env.OTEL_METRICS_EXPORTER ?? "otlp") !== "none";
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      "service.name": process.env.OTEL_SERVICE_NAME ?? serviceName,
      "service.version": operatorVersion(),
      "service.instance.id": process.env.POD_NAME ?? process.env.HOSTNAME ?? randomUUID(),
    }),
    ...(metricsWanted
      ? { metricReader: new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() }) }
      : {}),
    instrumentations: [],
  });
  sdk.start();
  // After start, so the gauges are created on the SDK's meter rather than the API's no-op one.
  if (metricsWanted) registerStatusGauges(metrics.getMeter("nats-operator"));
  return () => sdk.shutdown();
}
