import http2 from "node:http2";
import type tls from "node:tls";
import { KubeRequestError } from "./errors.ts";

/** What one exchange over HTTP/2 answered. */
export interface Answer {
  code: number;
  text: string;
}

/** TLS settings of a connection: one connection serves every request with the same settings. */
export interface Http2Tls {
  secureContext?: tls.SecureContext;
  rejectUnauthorized?: boolean;
  servername?: string;
}

export interface Http2Sessions {
  /**
   * Sends one request over the shared connection. Undefined when the server does not speak
   * HTTP/2 (no `h2` in its TLS handshake): the caller uses HTTP/1.1 then, and from then on.
   */
  send(
    settings: Http2Tls,
    method: string,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    timeoutMs: number,
  ): Promise<Answer | undefined>;
}

interface Connection {
  session: http2.ClientHttp2Session;
  settings: Http2Tls;
  /** Resolves true once connected over h2, false when the server chose no h2; rejects when the connection failed. */
  ready: Promise<boolean>;
  /** False once the server said GOAWAY, the connection failed or a request on it timed out: new requests open another. */
  usable: boolean;
  active: number;
}

/** Told apart from other failures: the server never processed the stream, so it may be sent again. */
class Unsent extends Error {}

/**
 * One HTTP/2 connection to the API server, multiplexing every request, as client-go keeps one.
 * Over HTTP/1.1 a burst of 500 reconciles needs 500 sockets (a TLS handshake each, on both
 * sides of the 2-core machine); here it is one connection, and requests beyond the server's
 * stream limit wait in the client. The connection does not keep the process alive while idle.
 */
export function http2Sessions(origin: string): Http2Sessions {
  let current: Connection | undefined;
  let unsupported = false;

  const open = (settings: Http2Tls): Connection => {
    const session = http2.connect(origin, {
      ...settings,
      // As client-go's transport: large windows, so big lists are not paced by window updates.
      settings: { initialWindowSize: 4 << 20, enablePush: false },
      maxSessionMemory: 64,
    });
    const connection: Connection = { session, settings, ready: Promise.resolve(false), usable: true, active: 0 };
    connection.ready = new Promise<boolean>((resolve, reject) => {
      session.once("connect", (_session, socket) => {
        const h2 = (socket as tls.TLSSocket).alpnProtocol === "h2";
        if (!h2) {
          session.destroy();
          resolve(false);
          return;
        }
        // Destroyed between the handshake and this event (the server went away, or the process is
        // closing connections): a failed connection, not an exception thrown from an event handler.
        try {
          session.setLocalWindowSize(32 << 20);
          resolve(true);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      session.once("error", reject);
    });
    // Nobody may be waiting yet; the rejection is seen by the next request.
    connection.ready.catch(() => undefined);
    const retire = () => {
      connection.usable = false;
      if (current === connection) current = undefined;
    };
    session.on("goaway", retire);
    session.on("close", retire);
    session.on("error", retire);
    // Held while requests are in flight (the first one is why it opens), released when idle.
    return connection;
  };

  const connection = async (settings: Http2Tls): Promise<Connection | undefined> => {
    if (
      !current ||
      !current.usable ||
      current.settings.secureContext !== settings.secureContext ||
      current.settings.rejectUnauthorized !== settings.rejectUnauthorized ||
      current.settings.servername !== settings.servername
    ) {
      if (current?.usable) {
        // Credentials changed: new requests go to a new connection; this one ends after its last.
        current.usable = false;
        current.session.close();
      }
      current = open(settings);
    }
    const chosen = current;
    try {
      if (await chosen.ready) return chosen;
    } catch (error) {
      if (current === chosen) current = undefined;
      // A server that knows ALPN but not h2 refuses the handshake (Node's does; Go's picks no protocol).
      if ((error as { code?: string }).code !== "ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL")
        throw new KubeRequestError(0, "NetworkError", error instanceof Error ? error.message : String(error));
    }
    unsupported = true;
    return undefined;
  };

  const exchange = (
    chosen: Connection,
    method: string,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    timeoutMs: number,
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = chosen.session.request(
          { ":method": method, ":path": `${url.pathname}${url.search}`, ...headers },
          { endStream: payload === undefined },
        );
      } catch (error) {
        // Closed or told to go away between the check and the request: nothing was sent.
        chosen.usable = false;
        reject(new Unsent(error instanceof Error ? error.message : String(error)));
        return;
      }
      if (chosen.active++ === 0) chosen.session.ref();
      let code = 0;
      let settled = false;
      const chunks: Buffer[] = [];
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        if (--chosen.active === 0 && !chosen.session.destroyed) chosen.session.unref();
        outcome();
      };
      stream.setTimeout(timeoutMs, () => {
        // Maybe a dead connection: later requests take a new one.
        chosen.usable = false;
        if (current === chosen) current = undefined;
        chosen.session.close();
        stream.close(http2.constants.NGHTTP2_CANCEL);
        finish(() =>
          reject(new KubeRequestError(0, "NetworkError", `${method} ${url.pathname} timed out after ${timeoutMs} ms`)),
        );
      });
      stream.on("response", (responseHeaders) => (code = Number(responseHeaders[":status"] ?? 0)));
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => finish(() => resolve({ code, text: Buffer.concat(chunks).toString("utf8") })));
      stream.on("error", (error: Error) =>
        finish(() =>
          reject(
            stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM
              ? new Unsent(error.message)
              : new KubeRequestError(0, "NetworkError", error.message),
          ),
        ),
      );
      stream.on("close", () =>
        finish(() =>
          reject(
            stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM
              ? new Unsent(`${method} ${url.pathname}: stream refused`)
              : new KubeRequestError(0, "NetworkError", `${method} ${url.pathname}: stream closed (${stream.rstCode})`),
          ),
        ),
      );
      if (payload !== undefined) stream.end(payload);
    });

  return {
    async send(settings, method, url, headers, payload, timeoutMs) {
      if (unsupported) return undefined;
      // A stream the server refused, or that never left, is safe to send again, on a new connection.
      for (let attempt = 0; ; attempt++) {
        const chosen = await connection(settings);
        if (!chosen) return undefined;
        try {
          return await exchange(chosen, method, url, headers, payload, timeoutMs);
        } catch (error) {
          if (!(error instanceof Unsent)) throw error;
          chosen.usable = false;
          if (current === chosen) current = undefined;
          if (attempt >= 2) throw new KubeRequestError(0, "NetworkError", error.message);
        }
      }
    },
  };
}
