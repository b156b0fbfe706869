// Reads each server's monitoring port (/varz, /jsz) in parallel, with short timeouts.
import { monitorUrl } from "../cluster/index.ts";
import type { Jsz, ServerReport, Varz } from "./snapshot.ts";

export const MONITOR_TIMEOUT_MS = 2000;
const JSZ_QUERY = "accounts=true&streams=true&consumers=true&raft=true";

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(MONITOR_TIMEOUT_MS) });
    if (!response.ok) return undefined;
    return (await response.json()) as T;
  } catch {
    return undefined;
  }
}

/** The monitoring base URL of a server; replaceable in tests. */
export type MonitorAddress = (cluster: string, namespace: string, server: string) => string;

export async function readServer(
  cluster: string,
  namespace: string,
  server: string,
  jetstream: boolean,
  address: MonitorAddress = monitorUrl,
): Promise<ServerReport> {
  const base = address(cluster, namespace, server);
  const [varz, jsz] = await Promise.all([
    getJson<Varz>(`${base}/varz`),
    jetstream ? getJson<Jsz>(`${base}/jsz?${JSZ_QUERY}`) : Promise.resolve(undefined),
  ]);
  return { server, ...(varz ? { varz } : {}), ...(jsz ? { jsz } : {}) };
}

export function readServers(
  cluster: string,
  namespace: string,
  servers: readonly string[],
  jetstream: boolean,
  address?: MonitorAddress,
): Promise<ServerReport[]> {
  return Promise.all(servers.map((s) => readServer(cluster, namespace, s, jetstream, address)));
}
