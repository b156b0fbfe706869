import { appendFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Request, type Response } from "express";
import { HTTP, type CloudEvent } from "cloudevents";
import type { Logger } from "../telemetry/logger.ts";
import { dispatch, type DispatchDeps } from "./dispatch.ts";
import type { OperatorFunction } from "./function.ts";
import { httpStatusFor, malformed, type Outcome } from "./outcome.ts";

export interface ServerOptions {
  functions: readonly OperatorFunction[];
  deps: DispatchDeps;
  port: number;
  host?: string;
  /**
   * A JSON Lines file every received CloudEvent is appended to, in structured form, before it is
   * handled (NATS_OPERATOR_EVENT_LOG): what `nats-operator replay` reads to replay an incident.
   */
  eventLog?: string;
}

export interface RunningServer {
  readonly port: number;
  /** Stops accepting, lets in-flight events finish, then resolves. */
  close(): Promise<void>;
}

/**
 * One HTTP server hosting any subset of the functions. With one function it
 * takes events on `/`, as a Knative Service does; with several, each also on
 * `/<function-name>`. Health endpoints never touch NATS or the API server.
 */
export function startServer(options: ServerOptions): Promise<RunningServer> {
  const { functions, deps } = options;
  const byName = new Map(functions.map((fn) => [fn.name, fn]));
  const inFlight = new Set<Promise<unknown>>();
  let draining = false;

  const app = express();
  app.disable("x-powered-by");
  app.use(express.raw({ type: () => true, limit: "8mb" }));

  const healthy = (_req: Request, res: Response) => void res.status(200).json({ status: "ok" });
  app.get("/health/liveness", healthy);
  app.get("/healthz", healthy);
  app.get(
    "/health/readiness",
    (_req, res) => void res.status(draining ? 503 : 200).json({ status: draining ? "draining" : "ok" }),
  );

  const receive = (fn: OperatorFunction | undefined) => async (req: Request, res: Response) => {
    if (!fn) {
      respond(res, malformed(`no function here; hosted: ${[...byName.keys()].join(", ")}`), deps.log);
      return;
    }
    const parsed = toCloudEvent(req);
    if ("message" in parsed) {
      respond(res, malformed(parsed.message), deps.log);
      return;
    }
    if (options.eventLog !== undefined) await recordEvent(options.eventLog, parsed.event, deps.log);
    const work = dispatch(fn, parsed.event, deps);
    inFlight.add(work);
    try {
      respond(res, await work, deps.log);
    } finally {
      inFlight.delete(work);
    }
  };

  const only = functions.length === 1 ? functions[0] : undefined;
  app.post("/", receive(only));
  app.post("/:function", (req, res) => receive(byName.get(String(req.params.function)))(req, res));

  const server = http.createServer(app);
  // Knative's queue-proxy keeps connections open; idle ones must not hold shutdown.
  server.keepAliveTimeout = 5_000;

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        async close() {
          draining = true;
          const closed = new Promise<void>((done) => server.close(() => done()));
          server.closeIdleConnections();
          await Promise.allSettled([...inFlight]);
          server.closeAllConnections();
          await closed;
        },
      });
    });
  });
}

/** Appends the event as one line; a log that cannot be written is said once per failure, never fatal. */
async function recordEvent(file: string, event: CloudEvent<unknown>, log: Logger): Promise<void> {
  try {
    await appendFile(file, `${JSON.stringify(event.toJSON())}\n`);
  } catch (error) {
    log.warn({ err: error, file }, "could not record the event");
  }
}

function toCloudEvent(req: Request): { event: CloudEvent<unknown> } | { message: string } {
  const body = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
  );
  try {
    const message = { headers, body };
    if (!HTTP.isEvent(message))
      return { message: "request is not a CloudEvent (no ce-* headers and no structured body)" };
    const event = HTTP.toEvent<unknown>(message);
    if (Array.isArray(event)) return { message: "batched CloudEvents are not accepted; send one event per request" };
    // In binary mode the trace may come as the plain W3C header, which the binding leaves out.
    const [single, traceparent] = [event as CloudEvent<unknown>, headers["traceparent"]];
    if (traceparent && single.traceparent === undefined) return { event: single.cloneWith({ traceparent }, false) };
    return { event: single };
  } catch (error) {
    return { message: `malformed CloudEvent: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Response headers that say how an event was handled, for people reading a replay or a trace. */
export const OUTCOME_HEADER = "x-nats-operator-outcome";
export const DETAIL_HEADER = "x-nats-operator-detail";

/**
 * A 2xx answer has no body: the Broker reads a body as a reply event, and one that is not a
 * CloudEvent fails the delivery (which it then retries). What happened goes in headers; an
 * error answer carries it as JSON too, which Knative hands the dead-letter sink.
 */
function respond(res: Response, outcome: Outcome, log: Logger): void {
  const status = httpStatusFor(outcome);
  if (outcome.kind === "malformed") log.warn({ status, reason: outcome.message }, "event refused");
  const detail =
    outcome.kind === "done" ? outcome.summary : outcome.kind === "skipped" ? outcome.reason : outcome.message;
  res.status(status).set(OUTCOME_HEADER, outcome.kind);
  if (detail !== undefined) res.set(DETAIL_HEADER, encodeURIComponent(detail).slice(0, 2000));
  if (status >= 200 && status < 300) res.end();
  else res.json({ outcome: outcome.kind, ...(detail === undefined ? {} : { detail }) });
}
