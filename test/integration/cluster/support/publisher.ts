// Publishes to an R3 stream throughout a rollout and remembers what the cluster acknowledged.
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { waitFor } from "../../../harness/wait.ts";

/** A request that got no answer in time, as opposed to an answer saying no. */
function isTimeout(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /timeout|no responders/i.test(text);
}

export interface Publisher {
  acked: Map<number, string>;
  failures: number;
  stop(): Promise<void>;
  /** Acknowledged messages the stream no longer holds. */
  missing(): Promise<number[]>;
  close(): Promise<void>;
}

/** `creds`: a user's creds file, for clusters in operator mode. */
export async function startPublisher(
  servers: string[],
  stream: string,
  subject: string,
  intervalMs = 50,
  creds?: string,
): Promise<Publisher> {
  const authenticator = creds ? { authenticator: credsAuthenticator(new TextEncoder().encode(creds)) } : {};
  const nc: NatsConnection = await connect({
    servers,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    ...authenticator,
  });
  const jsm = await jetstreamManager(nc);
  // A freshly settled cluster on a loaded machine can let the first JetStream API request time
  // out; the stream is asked for again (adding the same config twice is no error).
  for (let attempt = 1; ; attempt++) {
    try {
      await jsm.streams.add({ name: stream, subjects: [`${subject}.>`], num_replicas: 3 });
      break;
    } catch (error) {
      if (attempt >= 6) throw error;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  const js = jetstream(nc, { timeout: 3000 });
  const acked = new Map<number, string>();
  let failures = 0;
  let running = true;
  let n = 0;
  const loop = (async () => {
    while (running) {
      const body = `m-${n++}`;
      try {
        const ack = await js.publish(`${subject}.x`, body);
        acked.set(ack.seq, body);
      } catch {
        failures++;
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    acked,
    get failures() {
      return failures;
    },
    async stop() {
      running = false;
      await loop;
    },
    async missing() {
      // Right after a rollout on a loaded machine the stream's leader can take a while to answer:
      // wait until it does, and count a message lost only when the stream says it has none such,
      // not when a request timed out.
      const manager = await jetstreamManager(nc, { checkAPI: false, timeout: 10_000 });
      await waitFor("the stream to answer after the rollout", () => manager.streams.info(stream), {
        timeoutMs: 120_000,
        intervalMs: 1_000,
      });
      const lost: number[] = [];
      for (const [seq, body] of acked) {
        const message = await waitFor(
          `message ${seq} or its absence`,
          async () => {
            try {
              return { body: (await manager.streams.getMessage(stream, { seq }))?.string() };
            } catch (error) {
              if (isTimeout(error)) throw error;
              return { body: undefined };
            }
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        );
        if (message.body !== body) lost.push(seq);
      }
      return lost;
    },
    async close() {
      await nc.close();
    },
  };
}
