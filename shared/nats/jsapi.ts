import type { NatsConnection } from "@nats-io/transport-node";

/** JetStream API default request timeout. */
export const jsApiTimeoutMs = 5_000;

/** The JetStream API answered with an error. */
export class JsApiError extends Error {
  override readonly name = "JsApiError";
  /** HTTP-style code (400, 404, 500, 503). */
  readonly code: number;
  /** JetStream error code (10059 stream not found, 10052 invalid config, …). */
  readonly errCode: number;

  constructor(code: number, errCode: number, description: string) {
    super(description);
    this.code = code;
    this.errCode = errCode;
  }
}

/** The request never got a JetStream answer (timeout, no responders, closed connection). */
export class NatsRequestError extends Error {
  override readonly name = "NatsRequestError";
}

export const ErrCodes = {
  streamNotFound: 10059,
  consumerNotFound: 10014,
  streamInvalidConfig: 10052,
  /** "no suitable peers for placement": a 400 that goes away when servers come back. */
  noSuitablePeers: 10005,
  /** "insufficient resources". */
  insufficientResources: 10023,
} as const;

/** Refusals for want of peers or room: retried, whatever their HTTP-style code says. */
export function isPlacementError(error: unknown): boolean {
  return (
    error instanceof JsApiError &&
    (error.errCode === ErrCodes.noSuitablePeers || error.errCode === ErrCodes.insufficientResources)
  );
}

export function isNotFound(error: unknown): boolean {
  return (
    error instanceof JsApiError &&
    (error.errCode === ErrCodes.streamNotFound || error.errCode === ErrCodes.consumerNotFound)
  );
}

let requests = 0;

/** JetStream API requests made by this process (the benchmark reads it). */
export function jsApiRequestCount(): number {
  return requests;
}

/** One request/reply on the `$JS.API` surface, answered as JSON or thrown as an error. */
export async function jsRequest<T = Record<string, unknown>>(
  nc: NatsConnection,
  subject: string,
  body?: unknown,
  timeoutMs = jsApiTimeoutMs,
): Promise<T> {
  requests++;
  let reply: Record<string, unknown>;
  try {
    const msg = await nc.request(`$JS.API.${subject}`, body === undefined ? "" : JSON.stringify(body), {
      timeout: timeoutMs,
    });
    reply = msg.json<Record<string, unknown>>();
  } catch (error) {
    throw new NatsRequestError(`$JS.API.${subject}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const failure = reply.error as { code?: number; err_code?: number; description?: string } | undefined;
  if (failure)
    throw new JsApiError(failure.code ?? 500, failure.err_code ?? 0, failure.description ?? "JetStream API error");
  return reply as T;
}
