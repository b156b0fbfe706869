// Publishes to a stream until stopped, keeping the sequence of every acknowledged message: what an
// application would need to find again after a move.
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

export interface Publishing {
  /** Stops publishing; the sequences the stream acknowledged. */
  stop(): Promise<number[]>;
}

/** Publishes `<prefix>.<n>` every 20 ms through `client`. */
export function publishThroughout(client: NatsConnection, prefix: string): Publishing {
  const jsc = jetstream(client, { timeout: 2_000 });
  const acked: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      try {
        acked.push((await jsc.publish(`${prefix}.${i}`, `${prefix} ${i}`)).seq);
      } catch {
        // Unacknowledged: the publisher would retry; only acknowledged messages must survive.
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return acked;
    },
  };
}
