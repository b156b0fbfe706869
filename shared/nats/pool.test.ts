import { describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import type { ConnectionSettings } from "./connection-settings.ts";
import { createConnectionPool, type Connector } from "./pool.ts";

function fakeConnector() {
  const made: { settings: ConnectionSettings; closed: boolean }[] = [];
  const connector: Connector = async (settings) => {
    const entry = { settings, closed: false };
    made.push(entry);
    return { isClosed: () => entry.closed, close: async () => void (entry.closed = true) } as unknown as NatsConnection;
  };
  return { made, connector };
}

const settings = (fingerprint: string): ConnectionSettings => ({ servers: ["nats://a:4222"], fingerprint });

describe("connection pool", () => {
  it("connects lazily, once per NatsConnection, and reuses the connection", async () => {
    const { made, connector } = fakeConnector();
    const pool = createConnectionPool(connector);
    expect(made).toHaveLength(0);
    const first = await pool.acquire("ns/a", settings("f1"));
    const again = await pool.acquire("ns/a", settings("f1"));
    expect(again).toBe(first);
    await pool.acquire("ns/b", settings("f1"));
    expect(made).toHaveLength(2);
  });

  it("reconnects when the settings change and closes the old connection", async () => {
    const { made, connector } = fakeConnector();
    const pool = createConnectionPool(connector);
    await pool.acquire("ns/a", settings("f1"));
    await pool.acquire("ns/a", settings("f2"));
    await new Promise((r) => setImmediate(r));
    expect(made.map((m) => m.closed)).toEqual([true, false]);
  });

  it("reconnects after the connection closed", async () => {
    const { made, connector } = fakeConnector();
    const pool = createConnectionPool(connector);
    const nc = await pool.acquire("ns/a", settings("f1"));
    await nc.close();
    await pool.acquire("ns/a", settings("f1"));
    expect(made).toHaveLength(2);
  });

  it("forgets a failed connect so the next event tries again", async () => {
    let calls = 0;
    const pool = createConnectionPool(async () => {
      calls++;
      throw new Error("refused");
    });
    await expect(pool.acquire("ns/a", settings("f1"))).rejects.toThrow("refused");
    await expect(pool.acquire("ns/a", settings("f1"))).rejects.toThrow("refused");
    expect(calls).toBe(2);
    expect(pool.size()).toBe(0);
  });

  it("closes everything on shutdown", async () => {
    const { made, connector } = fakeConnector();
    const pool = createConnectionPool(connector);
    await pool.acquire("ns/a", settings("f1"));
    await pool.acquire("ns/b", settings("f1"));
    await pool.closeAll();
    expect(made.every((m) => m.closed)).toBe(true);
  });
});
