import https from "node:https";
import tls from "node:tls";
import http from "node:http";
import { KubeRequestError } from "./errors.ts";
import { http2Sessions, type Http2Sessions, type Http2Tls } from "./http2-session.ts";

/** A connection to one API server: where it is and how to authenticate. */
export interface KubeTransport {
  /** The API server URL, as the kubeconfig names it. */
  readonly server: string;
  request(method: string, path: string, options?: RequestOptions): Promise<unknown>;
  /** Streams watch events until the signal aborts or the server closes the stream. */
  watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: Record<string, unknown>;
}

/** What the kubeconfig resolves to for one request. */
interface Endpoint {
  server: URL;
  tls: https.RequestOptions;
}

const requestTimeoutMs = 30_000;

/**
 * Loads the kubeconfig (KUBECONFIG, ~/.kube/config, or the in-cluster
 * service account; or the file `kubeconfig` names) lazily: the client library
 * is large and a function that answers an event without the API server should
 * not pay for it.
 */
export async function createTransport(kubeconfig?: string): Promise<KubeTransport> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (kubeconfig === undefined) kc.loadFromDefault();
  else kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeRequestError(0, "NoCluster", "no Kubernetes cluster configured (set KUBECONFIG)");
  const server = new URL(cluster.server);
  const agent =
    server.protocol === "https:" ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const endpoint = async (): Promise<Endpoint> => {
    // Applied per request: service-account tokens rotate on disk.
    const tls: https.RequestOptions = { agent };
    try {
      await kc.applyToHTTPSOptions(tls);
    } catch (error) {
      // Typically no kubeconfig at all: the client library then points at http://localhost:8080 and refuses it.
      const why = error instanceof Error ? error.message : String(error);
      throw new KubeRequestError(
        0,
        "NoCluster",
        `cannot use the Kubernetes API server ${cluster.server} (is KUBECONFIG set?): ${why}`,
      );
    }
    // The client library sets a new Agent of its own on every call: a socket per request, never
    // reused (a TLS handshake each, and the idle socket left open). Ours is kept.
    return { server, tls: withSharedContext({ ...tls, agent }) };
  };
  // HTTP/2 over TLS unless DISABLE_HTTP2 is set (client-go's switch); watches stay on HTTP/1.1.
  const h2 = server.protocol === "https:" && !process.env.DISABLE_HTTP2 ? http2Sessions(server.origin) : undefined;
  return {
    server: cluster.server,
    request: async (method, path, options = {}) => parseBody(await send(await endpoint(), h2, method, path, options)),
    watch: async (path, onEvent, signal) => stream(await endpoint(), path, onEvent, signal),
  };
}

let shared: { ca: unknown; cert: unknown; key: unknown; context: tls.SecureContext } | undefined;

/**
 * One TLS context for every connection while the credentials stay the same. Given the raw CA,
 * certificate and key, Node builds a context per new socket: a burst of 500 reconciles opening
 * 500 sockets spent over a second of CPU on that alone in the 500-stream benchmark.
 *
 * Compared by content: the client library reads the credentials afresh for every request (new
 * Buffers from the kubeconfig's data or files, so rotated files are picked up), and a context
 * costs 4–9 ms of CPU to build on the 2-core machine, so comparing by identity built one per
 * request.
 */
function withSharedContext(
  options: https.RequestOptions,
): https.RequestOptions & { secureContext?: tls.SecureContext } {
  const { ca, cert, key, ...rest } = options;
  if (ca === undefined && cert === undefined && key === undefined) return options;
  if (!shared || !sameMaterial(shared.ca, ca) || !sameMaterial(shared.cert, cert) || !sameMaterial(shared.key, key)) {
    shared = { ca, cert, key, context: tls.createSecureContext({ ca, cert, key }) };
  }
  return { ...rest, secureContext: shared.context };
}

/** Whether two TLS options (a string, a Buffer, or a list of them) hold the same bytes. */
export function sameMaterial(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameMaterial(x, b[i]));
  const bytes = (x: unknown) => (typeof x === "string" ? Buffer.from(x) : Buffer.isBuffer(x) ? x : undefined);
  const [x, y] = [bytes(a), bytes(b)];
  return x !== undefined && y !== undefined && x.equals(y);
}

function urlOf(server: URL, path: string, query: RequestOptions["query"] = {}): URL {
  const url = new URL(server.pathname.replace(/\/$/, "") + path, server);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

async function send(
  endpoint: Endpoint,
  h2: Http2Sessions | undefined,
  method: string,
  path: string,
  options: RequestOptions,
): Promise<string> {
  const url = urlOf(endpoint.server, path, options.query);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: "application/json" };
  if (payload !== undefined) {
    headers["content-type"] = options.contentType ?? "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const answer =
    h2 &&
    (await h2.send(
      http2Tls(endpoint.tls),
      method,
      url,
      {
        ...http2Headers(endpoint.tls),
        ...headers,
      },
      payload,
      requestTimeoutMs,
    ));
  if (answer) {
    if (answer.code >= 200 && answer.code < 300) return answer.text;
    throw statusError(answer.code, answer.text, `${method} ${url.pathname}`);
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { ...endpoint.tls, method, headers: { ...endpoint.tls.headers, ...headers }, timeout: requestTimeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const code = res.statusCode ?? 0;
          if (code >= 200 && code < 300) resolve(text);
          else reject(statusError(code, text, `${method} ${url.pathname}`));
        });
        res.on("error", (error) => reject(new KubeRequestError(0, "NetworkError", error.message)));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${url.pathname} timed out after ${requestTimeoutMs} ms`)));
    req.on("error", (error) => reject(new KubeRequestError(0, "NetworkError", error.message)));
    req.end(payload);
  });
}

/** The TLS settings of the shared HTTP/2 connection (the CA and client certificate are in the context). */
function http2Tls(options: https.RequestOptions & { secureContext?: tls.SecureContext }): Http2Tls {
  const { secureContext, rejectUnauthorized, servername } = options;
  return { secureContext, rejectUnauthorized, servername };
}

/** The client library's headers (a bearer token, impersonation) and basic auth, as HTTP/2 headers. */
function http2Headers(options: https.RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  if (options.auth) headers["authorization"] = `Basic ${Buffer.from(options.auth).toString("base64")}`;
  return headers;
}

function stream(
  endpoint: Endpoint,
  path: string,
  onEvent: (event: WatchEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const url = urlOf(endpoint.server, path);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { ...endpoint.tls, method: "GET", signal }, (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          reject(statusError(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"), `WATCH ${url.pathname}`)),
        );
        return;
      }
      let pending = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line) onEvent(JSON.parse(line) as WatchEvent);
        }
      });
      res.on("end", () => resolve());
      res.on("error", (error) =>
        signal.aborted ? resolve() : reject(new KubeRequestError(0, "NetworkError", error.message)),
      );
    });
    req.on("error", (error) =>
      signal.aborted ? resolve() : reject(new KubeRequestError(0, "NetworkError", error.message)),
    );
    req.end();
  });
}

function parseBody(text: string): unknown {
  return text === "" ? undefined : JSON.parse(text);
}

function statusError(code: number, text: string, what: string): KubeRequestError {
  try {
    const status = JSON.parse(text) as { reason?: string; message?: string };
    return new KubeRequestError(code, status.reason ?? "Unknown", status.message ?? `${what}: HTTP ${code}`);
  } catch {
    return new KubeRequestError(code, "Unknown", `${what}: HTTP ${code} ${text.slice(0, 200)}`);
  }
}
