import { describe, expect, it } from "@jest/globals";
import { telemetryRequested } from "./sdk.ts";

describe("telemetryRequested", () => {
  it("exports nothing when the environment names no exporter", () => {
    expect(telemetryRequested({})).toBe(false);
  });

  it("exports when an OTLP endpoint is given", () => {
    expect(telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
  });

  it("treats an exporter of none as no exporter", () => {
    expect(telemetryRequested({ OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" })).toBe(false);
  });

  it("honours OTEL_SDK_DISABLED", () => {
    expect(telemetryRequested({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" })).toBe(false);
  });
});
