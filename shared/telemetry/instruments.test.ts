import { Writable } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import { HTTP } from "cloudevents";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { clusterEvent } from "../../test/support/events.ts";
import { dispatch } from "../runtime/dispatch.ts";
import type { OperatorFunction } from "../runtime/function.ts";
import { done } from "../runtime/outcome.ts";
import { startServer } from "../runtime/server.ts";
import { parseTraceparent } from "./instruments.ts";
import { createLogger } from "./logger.ts";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;

/** A function that logs once, and what dispatching needs, with every log line kept. */
function logging() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const fn: OperatorFunction = {
    name: "logging",
    kinds: ["NatsCluster.cluster.nats-operator.io"],
    handlesPings: false,
    async handle(context) {
      context.log.info("working on it");
      return done("logged");
    },
  };
  const kube = memoryKube([]);
  const deps = {
    log: createLogger({ level: "info", destination }),
    kube: async () => kube,
    recorder: async () => ({ async record() {} }),
  };
  return { lines, fn, deps };
}

/** Dispatches one event to a function that logs once; answers every log line written. */
async function logLinesOf(overrides: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const { lines, fn, deps } = logging();
  await dispatch(fn, clusterEvent(overrides), deps);
  return lines;
}

describe("log lines of an event's handling, with no exporter configured", () => {
  it("carry the trace id of the event's traceparent", async () => {
    const lines = await logLinesOf({ traceparent });
    const working = lines.find((l) => l.msg === "working on it");
    expect(working?.traceId).toBe(traceId);
  });

  it("carry the trace id of a binary-mode event's plain W3C traceparent header", async () => {
    const { lines, fn, deps } = logging();
    const server = await startServer({ functions: [fn], deps, port: 0, host: "127.0.0.1" });
    try {
      const message = HTTP.binary(clusterEvent());
      const response = await fetch(`http://127.0.0.1:${server.port}/`, {
        method: "POST",
        headers: { ...(message.headers as Record<string, string>), traceparent },
        body: message.body as string,
      });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
    expect(lines.find((l) => l.msg === "working on it")?.traceId).toBe(traceId);
  });

  it("carry no traceId field when the event has no traceparent", async () => {
    const lines = await logLinesOf({});
    expect(lines.find((l) => l.msg === "working on it")).toBeDefined();
    for (const line of lines) expect(line).not.toHaveProperty("traceId");
    expect(JSON.stringify(lines)).not.toContain("0".repeat(32));
  });

  it("carry no traceId field when the traceparent is malformed or names the all-zero trace", async () => {
    for (const bad of ["not-a-traceparent", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`]) {
      const lines = await logLinesOf({ traceparent: bad });
      for (const line of lines) expect(line).not.toHaveProperty("traceId");
    }
  });
});

describe("parseTraceparent", () => {
  it("reads the trace id, span id and sampled flag of a W3C traceparent", () => {
    expect(parseTraceparent(traceparent)).toEqual({
      traceId,
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
      isRemote: true,
    });
  });

  it("refuses what is not one: missing, malformed, version ff, all-zero ids", () => {
    expect(parseTraceparent(undefined)).toBeUndefined();
    expect(parseTraceparent("00-abc-def-01")).toBeUndefined();
    expect(parseTraceparent(`ff-${traceId}-00f067aa0ba902b7-01`)).toBeUndefined();
    expect(parseTraceparent(`00-${"0".repeat(32)}-00f067aa0ba902b7-01`)).toBeUndefined();
    expect(parseTraceparent(`00-${traceId}-${"0".repeat(16)}-01`)).toBeUndefined();
  });
});
