// Two NATS clusters joined by gateways (a supercluster), one or more
// servers each, for moving streams between clusters.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type ConnectionOptions } from "@nats-io/transport-node";
import { ensureBinaries } from "../../../harness/binaries.ts";
import { freePorts } from "../../../harness/ports.ts";
import { spawnDetached, stopPid } from "../../../harness/processes.ts";
import type { NatsCluster, ServerControl } from "./nats-cluster.ts";

export interface SuperclusterOptions {
  /** `server_tags` of every server of a cluster, by cluster name. */
  tags?: Readonly<Record<string, readonly string[]>>;
  /** Config lines every server carries besides its own (accounts, `system_account`, …). */
  config?: readonly string[];
  /** How the test's own client connects (a user of an account, say). */
  clientOptions?: Partial<ConnectionOptions>;
}

export async function startSupercluster(
  clusters: readonly string[],
  serversPerCluster = 1,
  options: SuperclusterOptions = {},
): Promise<NatsCluster & ServerControl> {
  const bins = await ensureBinaries(() => undefined);
  const dir = await mkdtemp(join(tmpdir(), "sync-stream-nats-"));
  const servers = clusters.flatMap((cluster) =>
    Array.from({ length: serversPerCluster }, (_, i) => ({ cluster, name: `${cluster}-${i}` })),
  );
  const ports = await freePorts(servers.length * 3);
  const client = (i: number) => ports[i * 3] as number;
  const route = (i: number) => ports[i * 3 + 1] as number;
  const gateway = (i: number) => ports[i * 3 + 2] as number;
  const firstOf = (cluster: string) => servers.findIndex((s) => s.cluster === cluster);
  const pids: number[] = [];
  for (const [i, server] of servers.entries()) {
    // Every server lists its cluster's routes, itself included: nats-server wants configured
    // routes for a JetStream cluster even when the cluster has one server.
    const peers = servers.flatMap((s, j) =>
      s.cluster === server.cluster ? [`"nats-route://127.0.0.1:${route(j)}"`] : [],
    );
    const remotes = clusters
      .filter((c) => c !== server.cluster)
      .map((c) => `{ name: ${c}, urls: ["nats://127.0.0.1:${gateway(firstOf(c))}"] }`);
    const config = [
      `server_name: ${server.name}`,
      `listen: 127.0.0.1:${client(i)}`,
      `jetstream { store_dir: "${join(dir, server.name)}", max_file_store: 10GB, max_memory_store: 256MB }`,
      `cluster { name: ${server.cluster}, listen: 127.0.0.1:${route(i)}, routes: [${peers.join(", ")}] }`,
      `gateway { name: ${server.cluster}, listen: 127.0.0.1:${gateway(i)}, gateways: [${remotes.join(", ")}] }`,
      ...(options.tags?.[server.cluster] ? [`server_tags: ${JSON.stringify(options.tags[server.cluster])}`] : []),
      ...(options.config ?? []),
    ].join("\n");
    const file = join(dir, `${server.name}.conf`);
    await writeFile(file, `${config}\n`);
    pids.push(spawnDetached(bins.natsServer, ["-c", file], { logFile: join(dir, `${server.name}.log`) }));
  }
  const urls = servers.map((_, i) => `nats://127.0.0.1:${client(i)}`);
  const result: NatsCluster & ServerControl = {
    urls,
    names: servers.map((s) => s.name),
    dir,
    client: () => connect({ servers: urls, timeout: 5_000, ...options.clientOptions }),
    async stopServer(i) {
      await stopPid(pids[i] as number, { expect: "nats-server" });
    },
    startServer(i) {
      const name = servers[i]?.name as string;
      pids[i] = spawnDetached(bins.natsServer, ["-c", join(dir, `${name}.conf`)], {
        logFile: join(dir, `${name}.log`),
      });
    },
    async stop() {
      await Promise.all(pids.map((pid) => stopPid(pid, { expect: "nats-server" }).catch(() => undefined)));
      await rm(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 60_000;
  let last = "";
  for (;;) {
    try {
      const nc = await result.client();
      try {
        // Placing a stream in each cluster proves the meta group spans both.
        let ok = true;
        for (const cluster of clusters) {
          const name = `PROBE_${cluster}`;
          const reply = (
            await nc.request(
              `$JS.API.STREAM.CREATE.${name}`,
              JSON.stringify({ name, subjects: [`probe.${cluster}`], placement: { cluster } }),
              { timeout: 3_000 },
            )
          ).json<{ error?: unknown }>();
          if (reply.error) {
            ok = false;
            last = JSON.stringify(reply.error);
          } else await nc.request(`$JS.API.STREAM.DELETE.${name}`, "", { timeout: 3_000 });
        }
        if (ok) return result;
      } finally {
        await nc.close();
      }
    } catch (error) {
      last = String(error);
    }
    if (Date.now() > deadline) {
      await Promise.all(pids.map((pid) => stopPid(pid, { expect: "nats-server" }).catch(() => undefined)));
      throw new Error(`supercluster did not come up: ${last} (logs in ${dir})`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
