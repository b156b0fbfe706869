// From outside the cluster the servers' pod addresses and in-cluster names do not resolve, but the
// API server reaches them: its pods proxy (/api/v1/namespaces/<ns>/pods/<pod>:8222/proxy/...)
// answers each server's monitoring port with the user's own credentials. The rollout's monitor
// reads (servers/monitor.ts) take a base URL per server; this relay, on a loopback port of this
// process, gives each server one that the API server's proxy answers, so `preview` decides on the
// same reads as in the cluster.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeRequestError, type KubeTransport } from "../../../shared/kube/index.ts";
import { podName, PORTS } from "../../cluster/index.ts";
import { MONITOR_TIMEOUT_MS, type MonitorAddress } from "../servers/monitor.ts";

/** The API server path of a monitoring endpoint of a server, through the pods proxy. */
export function podProxyPath(namespace: string, server: string, endpoint: string): string {
  const pod = `${encodeURIComponent(podName(server))}:${PORTS.monitor}`;
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${pod}/proxy/${endpoint.replace(/^\/+/, "")}`;
}

type Target = { namespace: string; server: string; endpoint: string };

/** `/<namespace>/<server>/<endpoint>` of the relay's own URLs, or undefined for anything else. */
export function relayTarget(path: string): Target | undefined {
  const match = /^\/([^/]+)\/([^/]+)\/(.+)$/.exec(path);
  if (!match) return undefined;
  const [, namespace, server, endpoint] = match as unknown as [string, string, string, string];
  return { namespace: decodeURIComponent(namespace), server: decodeURIComponent(server), endpoint };
}

/**
 * One monitoring answer, as JSON text: through the pods proxy, or, when the API server will not
 * proxy to the pod (it refuses loopback and link-local pod addresses, and a user may lack
 * `pods/proxy`), from the pod's address directly, for a machine on the pod network.
 */
async function readMonitor(transport: KubeTransport, target: Target, query: URLSearchParams): Promise<string> {
  try {
    const body = await transport.request("GET", podProxyPath(target.namespace, target.server, target.endpoint), {
      query: Object.fromEntries(query),
    });
    return JSON.stringify(body ?? null);
  } catch (proxyError) {
    const pod = (await transport
      .request("GET", `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${podName(target.server)}`)
      .catch(() => undefined)) as { status?: { podIP?: string } } | undefined;
    const ip = pod?.status?.podIP;
    if (!ip) throw proxyError;
    const host = ip.includes(":") ? `[${ip}]` : ip;
    const response = await fetch(`http://${host}:${PORTS.monitor}/${target.endpoint}?${query.toString()}`, {
      signal: AbortSignal.timeout(MONITOR_TIMEOUT_MS),
    }).catch(() => undefined);
    if (!response?.ok) throw proxyError;
    return response.text();
  }
}

export interface MonitorRelay {
  address: MonitorAddress;
  close(): Promise<void>;
}

/** Starts the relay on 127.0.0.1; its address gives every server a base URL on it. */
export async function startMonitorRelay(transport: KubeTransport): Promise<MonitorRelay> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://relay");
    const target = relayTarget(url.pathname);
    if (req.method !== "GET" || !target) {
      res.writeHead(404).end();
      return;
    }
    readMonitor(transport, target, url.searchParams).then(
      (body) => res.writeHead(200, { "content-type": "application/json" }).end(body),
      (error: unknown) => {
        // The API server's answer for a pod it cannot reach (503, 404) passes through as is.
        const code = error instanceof KubeRequestError && error.code >= 400 ? error.code : 502;
        res.writeHead(code).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    address: (_cluster, namespace, name) =>
      `http://127.0.0.1:${port}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
