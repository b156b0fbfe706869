// Raw JSON requests to the API server. client-node's typed serialisers drop
// keys they do not model under their JSON names (for instance
// x-kubernetes-validations in a CRD schema given as plain JSON), so manifests
// read from files are sent as they are.
import { request } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

export class ApiError extends Error {
  readonly code: number;
  readonly body: string;
  constructor(code: number, body: string, what: string) {
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // not JSON
    }
    super(`${what}: HTTP ${code}: ${message}`);
    this.code = code;
    this.body = body;
  }
}

export async function rawRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error("kubeconfig has no current cluster");
  const url = new URL(path, cluster.server);
  const options: import("node:https").RequestOptions = { method, headers: { Accept: "application/json" } };
  await kc.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  if (payload !== undefined)
    options.headers = { ...options.headers, "Content-Type": contentType, "Content-Length": Buffer.byteLength(payload) };
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code >= 300) return reject(new ApiError(code, text, `${method} ${path}`));
        try {
          resolve(text === "" ? undefined : JSON.parse(text));
        } catch {
          resolve(text);
        }
      });
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: timeout`)));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
