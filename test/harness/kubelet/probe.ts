// Running a container probe against the pod's address.
import { connect } from "node:net";
import type { V1Container, V1Probe } from "@kubernetes/client-node";
import { httpGet } from "../http-check.ts";

function resolvePort(port: number | string | undefined, container: V1Container): number | undefined {
  if (typeof port === "number") return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** true = success. exec and grpc probes are not run and count as success. */
export async function runProbe(probe: V1Probe, ip: string, container: V1Container): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.httpGet !== undefined) {
    const port = resolvePort(probe.httpGet.port as number | string, container);
    if (port === undefined) return false;
    const scheme = (probe.httpGet.scheme ?? "HTTP").toLowerCase();
    const host = probe.httpGet.host ?? ip;
    let path = probe.httpGet.path ?? "/";
    if (!path.startsWith("/")) path = `/${path}`;
    try {
      // As a kubelet sends them: programs (Knative's among them) tell probes apart by the user agent.
      const headers: Record<string, string> = { "User-Agent": "kube-probe/1.35" };
      for (const h of probe.httpGet.httpHeaders ?? []) headers[h.name] = h.value;
      const r = await httpGet(`${scheme}://${host}:${port}${path}`, { timeoutMs, headers });
      return r.status >= 200 && r.status < 400;
    } catch {
      return false;
    }
  }
  const tcp = probe.tcpSocket;
  if (tcp !== undefined) {
    const port = resolvePort(tcp.port as number | string, container);
    if (port === undefined) return false;
    return new Promise((resolve) => {
      const socket = connect({ host: tcp.host ?? ip, port, timeout: timeoutMs });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
      socket.once("timeout", () => {
        socket.destroy();
        resolve(false);
      });
    });
  }
  return true;
}
