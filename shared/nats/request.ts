// Request/reply on the NATS APIs the functions use, with one error family: the JetStream API
// (`$JS.API.*`) and the server API (`$SYS.REQ.SERVER.<id>.*`, answered by one server, as the
// system user). An answer carrying an error throws NatsApiError; no answer throws NatsRequestError.
import type { ApiError } from "@nats-io/jetstream";
import { createInbox, type NatsConnection } from "@nats-io/transport-node";

/** JetStream API default request timeout. */
export const jsApiTimeoutMs = 5_000;

/** The API answered with an error (a JetStream refusal, a rejected reload). */
export class NatsApiError extends Error {
  override readonly name = "NatsApiError";
  /** HTTP-style code (400, 404, 500, 503). */
  readonly code: number;
  /** JetStream error code (10059 stream not found, 10052 invalid config, …); 0 from the server API. */
  readonly errCode: number;

  constructor(code: number, errCode: number, description: string) {
    super(description);
    this.code = code;
    this.errCode = errCode;
  }
}

/** The request got no answer (timeout, no responders, closed connection): ask again later. */
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
    error instanceof NatsApiError &&
    (error.errCode === ErrCodes.noSuitablePeers || error.errCode === ErrCodes.insufficientResources)
  );
}

export function isNotFound(error: unknown): boolean {
  return (
    error instanceof NatsApiError &&
    (error.errCode === ErrCodes.streamNotFound || error.errCode === ErrCodes.consumerNotFound)
  );
}

let requests = 0;

/** JetStream API requests made by this process (the benchmark reads it). */
export function jsApiRequestCount(): number {
  return requests;
}

/** Server API requests to one server wait this long for its answer. */
export const serverApiTimeoutMs = 2_000;

async function request<T>(nc: NatsConnection, subject: string, body: unknown, timeoutMs: number): Promise<T> {
  let reply: Record<string, unknown>;
  try {
    const msg = await nc.request(subject, body === undefined ? "" : JSON.stringify(body), { timeout: timeoutMs });
    reply = msg.json<Record<string, unknown>>();
  } catch (error) {
    throw new NatsRequestError(`${subject}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The JetStream API and the server API answer a failure alike (nats-server's ApiError).
  const failure = reply.error as Partial<ApiError> | undefined;
  if (failure)
    throw new NatsApiError(
      failure.code ?? 500,
      failure.err_code ?? 0,
      failure.description ?? `${subject} answered with error ${String(failure.code)}`,
    );
  return reply as T;
}

/** One request/reply on the `$JS.API` surface, answered as JSON or thrown as an error. */
export function jsRequest<T = Record<string, unknown>>(
  nc: NatsConnection,
  subject: string,
  body?: unknown,
  timeoutMs = jsApiTimeoutMs,
): Promise<T> {
  requests++;
  return request<T>(nc, `$JS.API.${subject}`, body, timeoutMs);
}

/** One request to one server's API, `$SYS.REQ.SERVER.<id>.<verb>` (VARZ, RELOAD, …), as the system user. */
export function serverRequest<T = Record<string, unknown>>(
  nc: NatsConnection,
  serverId: string,
  verb: string,
  timeoutMs = serverApiTimeoutMs,
): Promise<T> {
  return request<T>(nc, `$SYS.REQ.SERVER.${serverId}.${verb}`, undefined, timeoutMs);
}

/** One request to a system subject answered by one responder (`$SYS.REQ.USER.INFO`, an imported stepdown). */
export function systemRequest<T = Record<string, unknown>>(
  nc: NatsConnection,
  subject: string,
  body?: unknown,
  timeoutMs = serverApiTimeoutMs,
): Promise<T> {
  return request<T>(nc, subject, body, timeoutMs);
}

/** How long a `$SYS.REQ.SERVER.PING.*` request gathers answers at most. */
export const pingWaitMs = 2_000;

/**
 * Ends a gather `waitMs` after it began; the returned function cancels that (the gather ended
 * first). Replies the servers sent in time may still sit unread in the socket when the timer fires:
 * a process busy past the deadline runs its expired timers before it reads its socket. So the gather
 * ends only after a round trip to the server (its PONG comes behind every reply it had already
 * forwarded), bounded by another `waitMs` so a stuck connection cannot hold it open.
 */
function endGatherAfter(nc: NatsConnection, sub: { unsubscribe(): void }, waitMs: number): () => void {
  let bound: ReturnType<typeof setTimeout> | undefined;
  const timer = setTimeout(() => {
    const bounded = new Promise<void>((resolve) => (bound = setTimeout(resolve, waitMs)));
    void Promise.race([(async () => nc.flush())(), bounded])
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(bound);
        sub.unsubscribe();
      });
  }, waitMs);
  return () => {
    clearTimeout(timer);
    clearTimeout(bound);
  };
}

/**
 * A request every server answers (`$SYS.REQ.SERVER.PING.STATSZ`, `.JSZ`): the replies gathered
 * until `complete` says every expected server answered, or `timeoutMs` passes. Replies come to an
 * inbox under `inboxPrefix`, the only inbox the controller's permissions let it read. Replies that
 * are not JSON objects are dropped; what a reply means is the caller's to judge.
 */
export async function gatherReplies<T extends object>(
  nc: NatsConnection,
  subject: string,
  body: unknown,
  options: { inboxPrefix: string; complete: (replies: readonly T[]) => boolean; timeoutMs?: number },
): Promise<T[]> {
  const replies: T[] = [];
  const inbox = createInbox(options.inboxPrefix);
  const sub = nc.subscribe(inbox);
  const stopEnding = endGatherAfter(nc, sub, options.timeoutMs ?? pingWaitMs);
  try {
    nc.publish(subject, JSON.stringify(body ?? {}), { reply: inbox });
    for await (const msg of sub) {
      try {
        const reply = msg.json<unknown>();
        if (reply && typeof reply === "object" && !Array.isArray(reply)) replies.push(reply as T);
      } catch {
        // not JSON: not an answer we can read
      }
      if (options.complete(replies)) break;
    }
  } finally {
    stopEnding();
    sub.unsubscribe();
  }
  return replies;
}

/** One raw answer: its payload as text, and whether it was the server's "no responders" status. */
export interface RawReply {
  data: string;
  noResponders: boolean;
}

/**
 * Like gatherReplies, for requests whose answers are not all JSON: `$SYS.REQ.ACCOUNT.<key>.CLAIMS.LOOKUP`
 * answers with the raw JWT a server holds, or an empty payload when it holds none. The payload is
 * sent as is (a JWT for `$SYS.REQ.CLAIMS.UPDATE`).
 */
export async function gatherRawReplies(
  nc: NatsConnection,
  subject: string,
  payload: string,
  options: { inboxPrefix: string; complete: (replies: readonly RawReply[]) => boolean; timeoutMs?: number },
): Promise<RawReply[]> {
  const replies: RawReply[] = [];
  const inbox = createInbox(options.inboxPrefix);
  const sub = nc.subscribe(inbox);
  const stopEnding = endGatherAfter(nc, sub, options.timeoutMs ?? pingWaitMs);
  try {
    nc.publish(subject, payload, { reply: inbox });
    for await (const msg of sub) {
      // An empty message with status 503 says nobody listens on the subject, not "no JWT here".
      const noResponders = msg.data.length === 0 && msg.headers?.code === 503;
      replies.push({ data: msg.string(), noResponders });
      if (noResponders || options.complete(replies)) break;
    }
  } finally {
    stopEnding();
    sub.unsubscribe();
  }
  return replies;
}
