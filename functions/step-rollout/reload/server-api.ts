// What step-rollout asks one server over its `$SYS` server API: the config it has loaded (VARZ)
// and to reload it (RELOAD). Errors are the shared NATS request family (shared/nats/request.ts).
import type { NatsConnection } from "@nats-io/transport-node";
import { serverRequest } from "../../../shared/nats/index.ts";

/** The part of a VARZ answer a reload is judged by. */
export interface LoadedConfig {
  /** `config_digest`: sha256 of the server's own parse of the file it loaded. */
  digest?: string;
  /** `config_load_time`: when it last loaded (or reloaded) its config. */
  loadTime?: string;
  /** `metadata.config_revision`: the revision written into the file it loaded. */
  revision?: string;
}

interface VarzAnswer {
  data?: { config_digest?: string; config_load_time?: string; metadata?: Record<string, string> };
}

export async function loadedConfig(nc: NatsConnection, serverId: string): Promise<LoadedConfig> {
  const { data } = await serverRequest<VarzAnswer>(nc, serverId, "VARZ");
  const revision = data?.metadata?.["config_revision"];
  return {
    ...(data?.config_digest ? { digest: data.config_digest } : {}),
    ...(data?.config_load_time ? { loadTime: data.config_load_time } : {}),
    ...(revision ? { revision } : {}),
  };
}

/** Asks the server to reload its config file; a rejection throws NatsApiError. */
export async function reloadServer(nc: NatsConnection, serverId: string): Promise<void> {
  await serverRequest(nc, serverId, "RELOAD");
}
