// Real nats-server 2.15 processes for the JetStream tests: one server or a
// three-server JetStream cluster on 127.0.0.1, data in a temporary directory.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { connect, type ConnectionOptions, type NatsConnection } from "@nats-io/transport-node";
import { ensureBinaries } from "../../../harness/binaries.ts";
import { freePorts } from "../../../harness/ports.ts";
import { spawnDetached, stopPid } from "../../../harness/processes.ts";

export interface NatsCluster {
  urls: string[];
  names: string[];
  dir: string;
  /** A client connection for the test itself (acting "behind the operator's back"). */
  client(): Promise<NatsConnection>;
  stop(): Promise<void>;
}

/** One server of a cluster started here, stopped and started again by the test. */
export interface ServerControl {
  /** Stops server `i` (its data stays), as a crash or a node going away would. */
  stopServer(i: number): Promise<void>;
  /** Starts server `i` again on its old config and data. */
  startServer(i: number): void;
}

export interface NatsClusterOptions {
  servers?: number;
  name?: string;
  /** Config lines every server carries besides its own (accounts, `system_account`, …). */
  config?: string[];
  /** How the test's own client connects (a user of an account, say). */
  clientOptions?: Partial<ConnectionOptions>;
}

export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster & ServerControl> {
  const count = options.servers ?? 3;
  const clusterName = options.name ?? "js";
  const bins = await ensureBinaries(() => undefined);
  const dir = await mkdtemp(join(tmpdir(), "sync-stream-nats-"));
  const ports = await freePorts(count * 2);
  const clientPorts = ports.slice(0, count);
  const routePorts = ports.slice(count);
  const names = clientPorts.map((_, i) => `${clusterName}-${i}`);
  const pids: number[] = [];
  for (let i = 0; i < count; i++) {
    const routes = routePorts.filter((_, j) => j !== i).map((p) => `nats-route://127.0.0.1:${p}`);
    const config = [
      `server_name: ${names[i]}`,
      `listen: 127.0.0.1:${clientPorts[i]}`,
      `jetstream { store_dir: "${join(dir, names[i] as string)}", max_file_store: 200GB, max_memory_store: 512MB }`,
      ...(count > 1
        ? [
            `cluster { name: ${clusterName}, listen: 127.0.0.1:${routePorts[i]}, routes: [${routes.map((r) => `"${r}"`).join(", ")}] }`,
          ]
        : []),
      ...(options.config ?? []),
    ].join("\n");
    const file = join(dir, `${names[i]}.conf`);
    await writeFile(file, `${config}\n`);
    pids.push(spawnDetached(bins.natsServer, ["-c", file], { logFile: join(dir, `${names[i]}.log`) }));
  }
  const urls = clientPorts.map((p) => `nats://127.0.0.1:${p}`);
  const cluster: NatsCluster & ServerControl = {
    urls,
    names,
    dir,
    client: () => connect({ servers: urls, timeout: 5_000, ...options.clientOptions }),
    async stopServer(i) {
      await stopPid(pids[i] as number, { expect: "nats-server" });
    },
    startServer(i) {
      const name = names[i] as string;
      pids[i] = spawnDetached(bins.natsServer, ["-c", join(dir, `${name}.conf`)], {
        logFile: join(dir, `${name}.log`),
      });
    },
    async stop() {
      await Promise.all(pids.map((pid) => stopPid(pid, { expect: "nats-server" }).catch(() => undefined)));
      await rm(dir, { recursive: true, force: true });
    },
  };
  await waitForJetStream(cluster);
  return cluster;
}

/** Waits until JetStream answers (in a cluster: a meta leader is elected). */
async function waitForJetStream(cluster: NatsCluster, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const nc = await cluster.client();
      try {
        const reply = (await nc.request("$JS.API.INFO", "", { timeout: 2_000 })).json<{
          error?: { description: string };
        }>();
        if (!reply.error) return;
        last = reply.error.description;
      } finally {
        await nc.close();
      }
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`JetStream did not come up within ${timeoutMs} ms: ${last} (logs in ${cluster.dir})`);
}

/**
 * One JetStream API request from the test's own client. A request that meets no answer in 5 s is
 * sent again, twice at most: on a busy machine a meta group just elected can let the first ones
 * time out, and the requests the tests make (create or update with the same config, info, get)
 * give the same answer when repeated.
 */
export async function js<T = Record<string, unknown>>(nc: NatsConnection, subject: string, body?: unknown): Promise<T> {
  const payload = body === undefined ? "" : JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    try {
      const msg = await nc.request(`$JS.API.${subject}`, payload, { timeout: 5_000 });
      return msg.json<T>();
    } catch (error) {
      if (attempt >= 3 || (error as { name?: unknown } | undefined)?.name !== "TimeoutError") throw error;
    }
  }
}

/**
 * Creates a stream the way someone other than the operator would, and makes sure it exists. A
 * meta group just elected may not answer yet, or may not know every peer and answer
 * "insufficient resources" to a replicated stream; a create with the same config is repeated until
 * it succeeds, so a test never starts from a stream that silently was not made.
 */
export async function createStream(
  nc: NatsConnection,
  config: { name: string } & Record<string, unknown>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const reply = await js<{ error?: { description: string } }>(nc, `STREAM.CREATE.${config.name}`, config);
      if (!reply.error) return;
      last = reply.error.description;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline)
      throw new Error(`stream ${config.name} was not created within ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * A JetStream publish soon after its stream was made: the leader's interest reaches the client's
 * server (over a route or a gateway) a moment after it is elected, so no-responders is retried;
 * the message ID keeps a retried message single.
 */
export const publishOnce = (nc: NatsConnection, subject: string, body: string, id: string) =>
  jetstream(nc).publish(subject, body, { msgID: id, retries: 8 });
