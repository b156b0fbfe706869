// Minimal HTTP(S) GET for health checks, with optional client certificates.
import { request as httpsRequest } from "node:https";
import { request as httpRequest } from "node:http";
import { readFileSync } from "node:fs";

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

export interface HttpResult {
  status: number;
  body: string;
}

export function httpGet(
  url: string,
  options: { tls?: TlsFiles; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const tls = options.tls;
    const common = { method: "GET", timeout: options.timeoutMs ?? 2_000, headers: options.headers ?? {} };
    const onResponse = (res: import("node:http").IncomingMessage): void => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c.length + body.length < 1_000_000 ? c : ""));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    };
    const req =
      u.protocol === "https:"
        ? httpsRequest(
            u,
            tls === undefined
              ? { ...common, rejectUnauthorized: false }
              : { ...common, ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) },
            onResponse,
          )
        : httpRequest(u, common, onResponse);
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: timeout`)));
    req.on("error", reject);
    req.end();
  });
}
