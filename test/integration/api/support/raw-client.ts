// A minimal HTTP client for the API server that sends bodies exactly as given.
// (client-node's typed serializers drop `x-kubernetes-*` schema keys, so CRDs
// go through here; the OpenAPI document is read here too.)
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

export interface RawResponse {
  readonly status: number;
  readonly body: string;
}

export const rawRequest = async (
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<RawResponse> => {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("kubeconfig has no current cluster");
  const url = new URL(path, cluster.server);
  const options: https.RequestOptions = {
    method,
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": contentType }) },
  };
  await kc.applyToHTTPSOptions(options);
  return await new Promise<RawResponse>((resolve, reject) => {
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    if (body !== undefined) req.write(typeof body === "string" ? body : JSON.stringify(body));
    req.end();
  });
};
