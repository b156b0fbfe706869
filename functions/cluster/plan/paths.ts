// Where things live inside a server pod; the config file names these paths.

export const POD_PATHS = {
  configDir: "/etc/nats-config",
  configFile: "/etc/nats-config/nats.conf",
  pidDir: "/var/run/nats",
  pidFile: "/var/run/nats/nats.pid",
  dataDir: "/data",
  storeDir: "/data/jetstream",
  /** The account resolver's directory; beside the store, so a JetStream volume keeps it too. */
  resolverDir: "/data/resolver",
  routesTlsDir: "/etc/nats-routes-tls",
  clientTlsDir: "/etc/nats-client-tls",
  gatewayTlsDir: "/etc/nats-gateway-tls",
  leafnodesTlsDir: "/etc/nats-leafnodes-tls",
} as const;

export const CONFIG_KEY = "nats.conf";
