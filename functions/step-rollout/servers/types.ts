// The vocabulary of reaching the servers, as plain data the observation carries and decide reads:
// the system user a NatsCluster names (system-user.ts reads it and connects with it).
import type { ConnectionSettings } from "../../../shared/nats/index.ts";

/** The system user of `auth.systemCredentials`: none named, named but unusable (why), or ready. */
export type SystemUser =
  { kind: "none" } | { kind: "unusable"; message: string } | { kind: "ready"; settings: ConnectionSettings };
