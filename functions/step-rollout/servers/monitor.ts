// Reads each server's monitoring port (/varz, /jsz) in parallel, with short timeouts; /jsz page
// after page, since a server answers at most 1024 accounts in one.
import { forEachJszPage } from "../../../shared/nats/index.ts";
import { monitorUrl } from "../../cluster/index.ts";
import type { Jsz, ServerReport, Varz } from "../rollout/snapshot.ts";

export const MONITOR_TIMEOUT_MS = 2000;
// config=true: the copies each stream asks for, so a copy not yet placed back counts as unsettled.
const JSZ_QUERY = "accounts=true&streams=true&consumers=true&raft=true&config=true";

type Answer<T> = { body: T } | { failure: string };

/** A failed request in a few stable words (no addresses or ports: they would churn the status). */
function describeFailure(error: unknown): string {
  // Read by shape, not `instanceof`: fetch's errors may come from another realm (a test VM context).
  const { name, cause } = (typeof error === "object" && error !== null ? error : {}) as {
    name?: unknown;
    cause?: { code?: unknown };
  };
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${MONITOR_TIMEOUT_MS / 1000} s`;
  if (typeof cause?.code === "string") return cause.code;
  return name === "SyntaxError" ? "not JSON" : "request failed";
}

async function getJson<T>(url: string): Promise<Answer<T>> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(MONITOR_TIMEOUT_MS) });
    if (!response.ok) return { failure: `HTTP ${response.status}` };
    return { body: (await response.json()) as T };
  } catch (error) {
    return { failure: describeFailure(error) };
  }
}

/**
 * Every /jsz page of a server as one answer: the first page's meta group, every page's accounts.
 * A page that fails fails the whole answer: a server seen in part would hide what the rest holds
 * from the gate and the deletion guard.
 */
async function readJsz(base: string): Promise<Answer<Jsz>> {
  let first: Jsz | undefined;
  let failure: string | undefined;
  const accounts: NonNullable<Jsz["account_details"]> = [];
  await forEachJszPage(async ({ offset, limit }) => {
    const page = await getJson<Jsz & { total?: number }>(`${base}/jsz?${JSZ_QUERY}&offset=${offset}&limit=${limit}`);
    if ("failure" in page) {
      failure = page.failure;
      return undefined;
    }
    first ??= page.body;
    accounts.push(...(page.body.account_details ?? []));
    return page.body.total;
  });
  if (failure !== undefined || first === undefined) return { failure: failure ?? "request failed" };
  const { total: _total, ...rest } = first as Jsz & { total?: number };
  return { body: { ...rest, account_details: accounts } };
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
    jetstream ? readJsz(base) : Promise.resolve(undefined),
  ]);
  const failure = "failure" in varz ? varz.failure : jsz !== undefined && "failure" in jsz ? jsz.failure : undefined;
  return {
    server,
    ...("body" in varz ? { varz: varz.body } : {}),
    ...(jsz !== undefined && "body" in jsz ? { jsz: jsz.body } : {}),
    ...(failure !== undefined ? { failure } : {}),
  };
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
