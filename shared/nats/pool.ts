import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { ConnectionSettings } from "./connection-settings.ts";

export type Connector = (settings: ConnectionSettings, name: string) => Promise<NatsConnection>;

/**
 * Connects once: a short timeout, and reconnects kept up for the life of the pooled connection.
 * Replies come to an inbox prefix of the controller's own, the only one its permissions let it read.
 */
export const connectWithInbox =
  (inboxPrefix: string): Connector =>
  (settings, name) =>
    connect({
      servers: settings.servers,
      name,
      timeout: 5_000,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      inboxPrefix,
      ...(settings.creds ? { authenticator: credsAuthenticator(new TextEncoder().encode(settings.creds)) } : {}),
      ...(settings.ca ? { tls: { ca: settings.ca } } : {}),
    });

/** The inbox prefix of the JetStream controller's connections (sync-stream, balance): the preset's subscribe permission. */
export const JETSTREAM_CONTROLLER_INBOX = "_INBOX.jetstream-controller";

export const connectTo: Connector = connectWithInbox(JETSTREAM_CONTROLLER_INBOX);

interface Entry {
  fingerprint: string;
  connection: Promise<NatsConnection>;
}

/**
 * One NATS connection per NatsConnection per process, made on first use and
 * reused across events. A changed spec or Secret (a new fingerprint) or a
 * closed connection makes the next `acquire` connect afresh.
 */
export interface ConnectionPool {
  acquire(key: string, settings: ConnectionSettings): Promise<NatsConnection>;
  /** Closes and forgets the connection of one NatsConnection (deleted, or failing). */
  release(key: string): Promise<void>;
  closeAll(): Promise<void>;
  size(): number;
}

export function createConnectionPool(
  connector: Connector = connectTo,
  clientName = "nats-operator/sync-stream",
): ConnectionPool {
  const entries = new Map<string, Entry>();

  const close = async (entry: Entry | undefined) => {
    if (!entry) return;
    try {
      const nc = await entry.connection;
      if (!nc.isClosed()) await nc.close();
    } catch {
      // a connection that never opened has nothing to close
    }
  };

  return {
    async acquire(key, settings) {
      const existing = entries.get(key);
      if (existing && existing.fingerprint === settings.fingerprint) {
        const nc = await existing.connection.catch(() => undefined);
        if (nc && !nc.isClosed()) return nc;
        if (entries.get(key) === existing) entries.delete(key);
      } else if (existing) {
        entries.delete(key);
        void close(existing);
      }
      const entry: Entry = { fingerprint: settings.fingerprint, connection: connector(settings, clientName) };
      entries.set(key, entry);
      try {
        return await entry.connection;
      } catch (error) {
        if (entries.get(key) === entry) entries.delete(key);
        throw error;
      }
    },
    async release(key) {
      const entry = entries.get(key);
      entries.delete(key);
      await close(entry);
    },
    async closeAll() {
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map(close));
    },
    size: () => entries.size,
  };
}
