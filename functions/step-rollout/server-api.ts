// Requests to one server over `$SYS.REQ.SERVER.<id>.*` as the system user: what config it has
// loaded (VARZ) and reloading it (RELOAD).
import type { NatsConnection } from "@nats-io/transport-node";

/** Single-server requests wait this long for an answer. */
export const SERVER_REQUEST_TIMEOUT_MS = 2000;

/** The part of a VARZ answer a reload is judged by. */
export interface LoadedConfig {
  /** `config_digest`: sha256 of the server's own parse of the file it loaded. */
  digest?: string;
  /** `config_load_time`: when it last loaded (or reloaded) its config. */
  loadTime?: string;
  /** `metadata.config_revision`: the revision written into the file it loaded. */
  revision?: string;
}

/** The server answered with an error (a rejected reload). */
export class ServerApiError extends Error {
  override readonly name = "ServerApiError";
}

/** No answer came (timeout, no responders, connection down): ask again later. */
export class ServerUnreachableError extends Error {
  override readonly name = "ServerUnreachableError";
}

interface ServerApiResponse {
  data?: { config_digest?: string; config_load_time?: string; metadata?: Record<string, string> };
  error?: { code?: number; description?: string };
}

async function request(nc: NatsConnection, subject: string): Promise<ServerApiResponse> {
  let reply: ServerApiResponse;
  try {
    const msg = await nc.request(subject, "", { timeout: SERVER_REQUEST_TIMEOUT_MS });
    reply = msg.json<ServerApiResponse>();
  } catch (error) {
    throw new ServerUnreachableError(`${subject}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (reply.error)
    throw new ServerApiError(reply.error.description ?? `${subject} answered with error ${String(reply.error.code)}`);
  return reply;
}

export async function loadedConfig(nc: NatsConnection, serverId: string): Promise<LoadedConfig> {
  const { data } = await request(nc, `$SYS.REQ.SERVER.${serverId}.VARZ`);
  const revision = data?.metadata?.["config_revision"];
  return {
    ...(data?.config_digest ? { digest: data.config_digest } : {}),
    ...(data?.config_load_time ? { loadTime: data.config_load_time } : {}),
    ...(revision ? { revision } : {}),
  };
}

/** Asks the server to reload its config file; a rejection throws ServerApiError. */
export async function reloadServer(nc: NatsConnection, serverId: string): Promise<void> {
  await request(nc, `$SYS.REQ.SERVER.${serverId}.RELOAD`);
}
