import http from "node:http";
import type { AddressInfo } from "node:net";
import { HTTP, type CloudEvent } from "cloudevents";
import type { Logger } from "../telemetry/logger.ts";
import { redactCredentials } from "../telemetry/redact.ts";
import { dispatch, type DispatchDeps } from "./dispatch.ts";
import { recordEvent } from "./event-log.ts";
import type { OperatorFunction } from "./function.ts";
import { httpStatusFor, malformed, type Outcome } from "./outcome.ts";
import type { SenderCheck } from "./sender-check.ts";

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
  /**
   * When set, every POST must carry a bearer token this check accepts (Knative Eventing's OIDC;
   * NATS_OPERATOR_OIDC_AUDIENCE): anything else is answered 401 before its body is read.
   */
  senderCheck?: SenderCheck;
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

  const receive = async (fn: OperatorFunction | undefined, req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!fn) {
      respond(res, malformed(`no function here; hosted: ${[...byName.keys()].join(", ")}`), deps.log);
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      answer(res, 413, { outcome: "malformed", detail: `a CloudEvent larger than ${BODY_LIMIT} bytes` });
      return;
    }
    const parsed = toCloudEvent(req.headers, body);
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

  const post = async (fn: OperatorFunction | undefined, req: http.IncomingMessage, res: http.ServerResponse) => {
    if (options.senderCheck !== undefined && !(await senderAccepted(options.senderCheck, req, res, deps.log))) return;
    await receive(fn, req, res);
  };

  const only = functions.length === 1 ? functions[0] : undefined;
  // A handful of routes, so plain node:http: a web framework would double the start-up time of
  // every pod that scales from zero.
  const route = (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> | void => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/(.)\/+$/, "$1");
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (method === "GET" && (path === "/healthz" || path === "/health/liveness"))
      return answer(res, 200, { status: "ok" });
    if (method === "GET" && path === "/health/readiness")
      return answer(res, draining ? 503 : 200, { status: draining ? "draining" : "ok" });
    if (method === "POST" && path === "/") return post(only, req, res);
    const named = /^\/([^/]+)$/.exec(path);
    if (method === "POST" && named) return post(byName.get(decodeURIComponent(named[1] ?? "")), req, res);
    return answer(res, 404, { status: "not found" });
  };

  const server = http.createServer((req, res) => {
    Promise.resolve(route(req, res)).catch((error: unknown) => {
      deps.log.error({ err: error }, "request failed");
      if (!res.headersSent) answer(res, 500, { status: "error" });
      else res.destroy();
    });
  });
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

/**
 * Whether the request's sender passes the check; when not, the answer is sent: 401 saying only
 * "unauthenticated" (why goes to the log, never the token), or 503 when the API server could not
 * be asked, which the Broker retries.
 */
async function senderAccepted(
  check: SenderCheck,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  log: Logger,
): Promise<boolean> {
  const verdict = await check(req.headers.authorization);
  if (verdict.kind === "accepted") return true;
  log.warn({ reason: verdict.reason, path: req.url }, "event refused: sender not authenticated");
  if (verdict.kind === "unavailable") {
    answer(res, 503, { status: "unavailable" });
    return false;
  }
  res.setHeader("www-authenticate", "Bearer");
  answer(res, 401, { status: "unauthenticated" });
  return false;
}

/** The largest CloudEvent taken, as the Broker's own limit is far below it. */
const BODY_LIMIT = 8 * 1024 * 1024;

/** The request body, or undefined when it exceeds BODY_LIMIT (read to the end all the same, so the answer arrives). */
async function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= BODY_LIMIT) chunks.push(chunk);
  }
  return size > BODY_LIMIT ? undefined : Buffer.concat(chunks).toString("utf8");
}

function answer(res: http.ServerResponse, status: number, body?: object): void {
  res.statusCode = status;
  if (body === undefined) {
    res.end();
    return;
  }
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.end(JSON.stringify(body));
}

function toCloudEvent(
  rawHeaders: http.IncomingHttpHeaders,
  body: string,
): { event: CloudEvent<unknown> } | { message: string } {
  const headers = Object.fromEntries(
    Object.entries(rawHeaders).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
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
function respond(res: http.ServerResponse, outcome: Outcome, log: Logger): void {
  const status = httpStatusFor(outcome);
  if (outcome.kind === "malformed") log.warn({ status, reason: outcome.message }, "event refused");
  // The Broker logs the answer and hands an error's body to the dead-letter sink: no URL credentials.
  const said =
    outcome.kind === "done" ? outcome.summary : outcome.kind === "skipped" ? outcome.reason : outcome.message;
  const detail = said === undefined ? undefined : redactCredentials(said);
  res.setHeader(OUTCOME_HEADER, outcome.kind);
  if (detail !== undefined) res.setHeader(DETAIL_HEADER, encodeURIComponent(detail).slice(0, 2000));
  if (status >= 200 && status < 300) answer(res, status);
  else answer(res, status, { outcome: outcome.kind, ...(detail === undefined ? {} : { detail }) });
}
