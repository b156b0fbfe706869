// A user-space service proxy (what kube-proxy does with iptables): each
// Service's cluster IP is added to the host's loopback device, and a TCP
// listener on clusterIP:port forwards every connection to one ready endpoint's
// podIP:targetPort, round robin. Pods in their own network namespaces reach
// the host through their default route, so they reach Services; so does the
// kube-apiserver when it calls a webhook Service.
import { execFile } from "node:child_process";
import { createConnection, createServer, type Server } from "node:net";
import { promisify } from "node:util";
import type { V1Service, V1ServicePort } from "@kubernetes/client-node";

const run = promisify(execFile);

export interface Endpoint {
  ip: string;
  port: number;
}

/** The endpoints of one Service port. */
export type EndpointLookup = (service: V1Service, port: V1ServicePort) => Endpoint[];

interface Listener {
  server: Server;
  endpoints: Endpoint[];
  next: number;
}

export class ServiceProxy {
  private readonly listeners = new Map<string, Listener>();
  private readonly addresses = new Set<string>();
  private readonly log: (msg: string) => void;

  constructor(log: (msg: string) => void) {
    this.log = log;
  }

  /** Brings listeners in line with the Services and their endpoints. */
  async sync(services: readonly V1Service[], lookup: EndpointLookup, fixed: Map<string, Endpoint[]>): Promise<void> {
    const wanted = new Map<string, Endpoint[]>();
    for (const svc of services) {
      const clusterIP = svc.spec?.clusterIP;
      if (clusterIP === undefined || clusterIP === "" || clusterIP === "None") continue;
      for (const port of svc.spec?.ports ?? []) {
        if ((port.protocol ?? "TCP") !== "TCP") continue;
        const key = `${clusterIP}:${port.port}`;
        wanted.set(key, fixed.get(key) ?? lookup(svc, port));
      }
    }
    for (const [key, endpoints] of wanted) {
      const existing = this.listeners.get(key);
      if (existing !== undefined) {
        existing.endpoints = endpoints;
        continue;
      }
      await this.listen(key, endpoints);
    }
    for (const [key, listener] of this.listeners) {
      if (wanted.has(key)) continue;
      listener.server.close();
      this.listeners.delete(key);
    }
  }

  private async listen(key: string, endpoints: Endpoint[]): Promise<void> {
    const [address, portText] = [key.slice(0, key.lastIndexOf(":")), key.slice(key.lastIndexOf(":") + 1)];
    if (!this.addresses.has(address)) {
      await run("ip", ["addr", "add", `${address}/32`, "dev", "lo"]).catch((err: unknown) => {
        if (!/exists/i.test(String(err))) throw err;
      });
      this.addresses.add(address);
    }
    const listener: Listener = { server: createServer(), endpoints, next: 0 };
    listener.server.on("connection", (client) => {
      const targets = listener.endpoints;
      const target = targets[listener.next++ % Math.max(1, targets.length)];
      if (target === undefined) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: target.ip, port: target.port });
      client.pipe(upstream).pipe(client);
      const close = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", close);
      upstream.on("error", close);
      client.on("close", close);
      upstream.on("close", close);
    });
    await new Promise<void>((resolve, reject) => {
      listener.server.once("error", reject);
      listener.server.listen(Number(portText), address, () => resolve());
    });
    this.listeners.set(key, listener);
    this.log(`service proxy: ${key} -> ${endpoints.map((e) => `${e.ip}:${e.port}`).join(", ") || "(no endpoints)"}`);
  }

  /** Closes every listener and removes the cluster IPs from the loopback device. */
  async stop(): Promise<void> {
    for (const listener of this.listeners.values()) listener.server.close();
    this.listeners.clear();
    for (const address of this.addresses)
      await run("ip", ["addr", "del", `${address}/32`, "dev", "lo"]).catch(() => undefined);
    this.addresses.clear();
  }
}
