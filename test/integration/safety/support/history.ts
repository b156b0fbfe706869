// The history of a run, as a checker of acknowledged writes reads it: publishers with a unique
// message id per publish on each stream, running until stopped, every acknowledgement recorded;
// then every replica of every stream is read, made leader in turn, and every acknowledged id must
// be at its sequence on each. A publish that got no acknowledgement may or may not be stored; it
// is not checked.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { waitFor } from "../../../harness/wait.ts";

export interface StreamUnderTest {
  name: string;
  subject: string;
  replicas: 1 | 3;
}

export interface Acknowledged {
  stream: string;
  seq: number;
  id: string;
}

/** An acknowledged message a replica does not hold at its sequence. */
export interface Loss extends Acknowledged {
  server: string;
  /** What the replica holds there instead: another id, or nothing. */
  found: string | undefined;
}

export interface History {
  readonly acknowledged: readonly Acknowledged[];
  /** Publishes that got no acknowledgement (an error or a timeout). */
  readonly unacknowledged: number;
  /** Acknowledged per stream so far. */
  count(stream: string): number;
  stop(): Promise<void>;
  /** Deletes an acknowledged message from its stream: what a loss looks like to `check`. */
  remove(message: Acknowledged): Promise<void>;
  /** Every acknowledged message each current replica lacks; also the replicas read per stream. */
  check(): Promise<{ losses: Loss[]; replicasRead: Record<string, string[]> }>;
  close(): Promise<void>;
}

const MSG_ID = "Nats-Msg-Id";

/** A JetStream API request's answer, or its error as a thrown Error. */
async function api(nc: NatsConnection, subject: string, body: unknown): Promise<Record<string, unknown>> {
  const reply = await nc.request(`$JS.API.${subject}`, JSON.stringify(body), { timeout: 5_000 });
  const answer = reply.json<Record<string, unknown> & { error?: { description?: string } }>();
  if (answer.error) throw new Error(`${subject}: ${answer.error.description ?? JSON.stringify(answer.error)}`);
  return answer;
}

/** The servers holding `stream` now: its leader first. */
async function replicasOf(jsm: JetStreamManager, stream: string): Promise<{ leader: string; all: string[] }> {
  const info = await jsm.streams.info(stream);
  const leader = info.cluster?.leader ?? "";
  return { leader, all: [leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].filter(Boolean) };
}

/** Makes `server` the stream's leader (a preferred stepdown; nats-server 2.11 and later). */
async function leadFrom(nc: NatsConnection, jsm: JetStreamManager, stream: string, server: string): Promise<void> {
  await waitFor(
    `${server} leading ${stream}`,
    async () => {
      const { leader } = await replicasOf(jsm, stream);
      if (leader === server) return true;
      await api(nc, `STREAM.LEADER.STEPDOWN.${stream}`, { placement: { preferred: server } }).catch(() => undefined);
      return undefined;
    },
    { timeoutMs: 60_000, intervalMs: 1_000 },
  );
}

/** What `stream` holds at each of `seqs`, read from its leader, a few requests at a time. */
async function idsAt(jsm: JetStreamManager, stream: string, seqs: readonly number[]): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (let at = 0; at < seqs.length; at += 32) {
    await Promise.all(
      seqs.slice(at, at + 32).map(async (seq) => {
        const message = await jsm.streams.getMessage(stream, { seq }).catch((error: unknown) => {
          if (/no message found|10037/i.test(String(error))) return null;
          throw error;
        });
        const id = message?.header?.get(MSG_ID);
        if (id) found.set(seq, id);
      }),
    );
  }
  return found;
}

/**
 * Creates the streams (file storage, on `servers`' cluster) and publishes to each every
 * `intervalMs` until stopped, through a connection that reconnects forever.
 */
export async function startHistory(
  servers: readonly string[],
  streams: readonly StreamUnderTest[],
  intervalMs = 100,
): Promise<History> {
  const nc = await connect({ servers: [...servers], maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const jsm = await jetstreamManager(nc, { timeout: 10_000 });
  for (const stream of streams)
    await waitFor(
      `stream ${stream.name} created`,
      () =>
        jsm.streams.add({
          name: stream.name,
          subjects: [`${stream.subject}.>`],
          num_replicas: stream.replicas,
          storage: StorageType.File,
        }),
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
  const js = jetstream(nc, { timeout: 3_000 });
  const acknowledged: Acknowledged[] = [];
  const counts = new Map<string, number>();
  let unacknowledged = 0;
  let running = true;
  const publishers = streams.map(async (stream) => {
    for (let n = 0; running; n++) {
      const id = `${stream.name}-${n}`;
      try {
        const ack = await js.publish(`${stream.subject}.m`, id, { msgID: id });
        if (!ack.duplicate) {
          acknowledged.push({ stream: stream.name, seq: ack.seq, id });
          counts.set(stream.name, (counts.get(stream.name) ?? 0) + 1);
        }
      } catch {
        unacknowledged++;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  });

  return {
    acknowledged,
    get unacknowledged() {
      return unacknowledged;
    },
    count: (stream) => counts.get(stream) ?? 0,
    async stop() {
      running = false;
      await Promise.all(publishers);
    },
    async remove(message) {
      await jsm.streams.deleteMessage(message.stream, message.seq, false);
    },
    async check() {
      const losses: Loss[] = [];
      const replicasRead: Record<string, string[]> = {};
      for (const stream of streams) {
        const acks = acknowledged.filter((a) => a.stream === stream.name);
        const { all } = await waitFor(`${stream.name} answering with a leader`, async () => {
          const replicas = await replicasOf(jsm, stream.name).catch(() => undefined);
          return replicas && replicas.all.length === stream.replicas ? replicas : undefined;
        });
        replicasRead[stream.name] = all;
        for (const server of all) {
          await leadFrom(nc, jsm, stream.name, server);
          const held = await idsAt(
            jsm,
            stream.name,
            acks.map((a) => a.seq),
          );
          for (const ack of acks)
            if (held.get(ack.seq) !== ack.id) losses.push({ ...ack, server, found: held.get(ack.seq) });
        }
      }
      return { losses, replicasRead };
    },
    async close() {
      await nc.close();
    },
  };
}
