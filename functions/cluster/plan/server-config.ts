// The nats-server configuration of one server, as the JSON text its ConfigMap carries.
import type { Cluster as NatsCluster } from "../cluster.ts";
import { PORTS, podHost, serverName } from "../names.ts";
import { renderAuthKeys, type AuthConfig } from "./auth-config.ts";
import { renderGateway } from "./gateway.ts";
import { renderLeafnodes, type ReadyLeafRemote } from "./leafnodes.ts";
import type { DerivedLimits } from "./limits.ts";
import { POD_PATHS } from "./paths.ts";

export interface ServerConfigInput {
  cluster: NatsCluster;
  ordinal: number;
  limits: DerivedLimits;
  /** Whether route TLS is on (it is unless `routes.tls.enabled: false`). */
  routeTls: boolean;
  /** Whether the client listener uses TLS (`spec.tls`). */
  clientTls: boolean;
  /** Operator mode (`spec.auth`, its trust resolved); omitted without auth. */
  auth?: AuthConfig;
  /** The leaf remotes admitted and read; a refused one is left out. */
  leafRemotes?: readonly ReadyLeafRemote[];
  /** The revision to report through `server_metadata`; omitted for the render that is hashed. */
  revision?: string;
}

export const LAME_DUCK_DURATION = "2m0s";
export const LAME_DUCK_GRACE_PERIOD = "10s";

/** Route URLs of every planned server, this one included. */
export function routeUrls(cluster: NatsCluster): string[] {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace ?? "default";
  return Array.from(
    { length: cluster.spec.replicas },
    (_, i) => `nats-route://${podHost(name, namespace, serverName(name, i))}:${PORTS.route}`,
  );
}

/**
 * Whether the one server runs JetStream standalone. nats-server's clustered JetStream needs a peer
 * to elect a meta leader: a lone server whose only route is itself waits for routing for ever, so
 * it gets no `cluster` block. With a gateway it has peers across the supercluster and stays clustered.
 */
export function runsStandaloneJetStream(spec: NatsCluster["spec"]): boolean {
  return spec.jetstream !== undefined && spec.replicas === 1 && spec.gateway === undefined;
}

/** The config object, keys in the order they are written. */
export function renderServerConfigObject(input: ServerConfigInput): Record<string, unknown> {
  const { cluster, ordinal, limits } = input;
  const spec = cluster.spec;
  const config: Record<string, unknown> = {
    server_name: serverName(cluster.metadata.name, ordinal),
    listen: `0.0.0.0:${PORTS.client}`,
    http: `0.0.0.0:${PORTS.monitor}`,
    pid_file: POD_PATHS.pidFile,
    lame_duck_duration: LAME_DUCK_DURATION,
    lame_duck_grace_period: LAME_DUCK_GRACE_PERIOD,
  };
  const tags = Object.entries(spec.serverTags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (tags.length > 0) config["server_tags"] = tags.map(([key, value]) => `${key}:${value}`);
  if (input.revision !== undefined) config["server_metadata"] = { config_revision: input.revision };
  if (input.clientTls) {
    config["tls"] = { cert_file: `${POD_PATHS.clientTlsDir}/tls.crt`, key_file: `${POD_PATHS.clientTlsDir}/tls.key` };
  }
  if (!runsStandaloneJetStream(spec)) config["cluster"] = renderRoutes(cluster, input.routeTls);
  const gateway = renderGateway(cluster);
  if (gateway) config["gateway"] = gateway;
  if (spec.jetstream) {
    const jetstream: Record<string, unknown> = { store_dir: POD_PATHS.storeDir };
    if (limits.maxMemoryStore !== undefined) jetstream["max_memory_store"] = Number(limits.maxMemoryStore);
    if (limits.maxFileStore !== undefined) jetstream["max_file_store"] = Number(limits.maxFileStore);
    if (spec.jetstream.domain) jetstream["domain"] = spec.jetstream.domain;
    // How often the file store fsyncs (nats-server's default 2m when absent), or `always`.
    if (spec.jetstream.syncInterval !== undefined) jetstream["sync_interval"] = spec.jetstream.syncInterval;
    config["jetstream"] = jetstream;
  }
  const leafnodes = renderLeafnodes(cluster, input.leafRemotes ?? []);
  if (leafnodes) config["leafnodes"] = leafnodes;
  if (input.auth) Object.assign(config, renderAuthKeys(input.auth));
  return config;
}

function renderRoutes(cluster: NatsCluster, routeTls: boolean): Record<string, unknown> {
  const routes: Record<string, unknown> = {
    name: cluster.metadata.name,
    listen: `0.0.0.0:${PORTS.route}`,
    routes: routeUrls(cluster),
  };
  if (routeTls) {
    routes["tls"] = {
      cert_file: `${POD_PATHS.routesTlsDir}/tls.crt`,
      key_file: `${POD_PATHS.routesTlsDir}/tls.key`,
      ca_file: `${POD_PATHS.routesTlsDir}/ca.crt`,
      verify: true,
    };
  }
  return routes;
}

/** The config file text: two-space JSON with a trailing newline. */
export function renderServerConfig(input: ServerConfigInput): string {
  return `${JSON.stringify(renderServerConfigObject(input), null, 2)}\n`;
}
