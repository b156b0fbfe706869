/**
 * Resync benchmark: what one resync tick costs an installation at rest. 500 NatsClusters (and
 * nothing else) exist with a status that describes their spec (Ready True) and render-cluster's
 * record of what their last reconcile read (each its client TLS Secret, absent:
 * shared/runtime/inputs.ts); a resync tick is dispatched to render-cluster 20 times, as the Broker
 * would deliver the PingSource's tick. Reports the median time of a sweep and the API requests it
 * made: at rest it lists each owned kind once, and each kind of input once per namespace the
 * records name, and delivers nothing. (sync-stream's tick is a drift check of every object, which
 * bench/idle.ts measures on real servers.)
 */
import { CloudEvent } from "cloudevents";
import { renderCluster } from "../functions/render-cluster/index.ts";
import { createKube } from "../shared/kube/client.ts";
import type { KubeObject } from "../shared/kube/object.ts";
import type { KubeTransport } from "../shared/kube/transport.ts";
import { dispatch } from "../shared/runtime/dispatch.ts";
import { formatRecord } from "../shared/runtime/inputs.ts";
import { RESYNC_WORK } from "../shared/runtime/resync.ts";
import { createLogger } from "../shared/telemetry/logger.ts";
import { startEnvironment } from "../test/integration/support/environment.ts";

const objects = Number(process.env.BENCH_RESYNC_OBJECTS ?? 500);
const sweeps = Number(process.env.BENCH_RESYNC_SWEEPS ?? 20);

function counting(transport: KubeTransport): { transport: KubeTransport; take: () => string[] } {
  let seen: string[] = [];
  return {
    transport: {
      ...transport,
      request: (...args: Parameters<KubeTransport["request"]>) => {
        seen.push(`${args[0]} ${args[1].split("?")[0] ?? ""}`);
        return transport.request(...args);
      },
    },
    take: () => {
      const out = seen;
      seen = [];
      return out;
    },
  };
}

async function main(): Promise<void> {
  const env = await startEnvironment({ profile: "apiserver" });
  try {
    const namespace = await env.namespace("resync");
    const started = performance.now();
    for (let i = 0; i < objects; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, objects - i) }, async (_, j) => {
          const name = `c${String(i + j).padStart(4, "0")}`;
          const created = await env.kube.create<KubeObject & { spec: unknown }>({
            apiVersion: "cluster.nats-operator.io/v1beta1",
            kind: "NatsCluster",
            metadata: { name, namespace },
            spec: { version: "2.15.2", replicas: 3 },
          });
          const now = new Date().toISOString();
          await env.kube.replaceStatus({
            ...created,
            status: {
              observedGeneration: created.metadata.generation,
              conditions: [
                {
                  type: "Ready",
                  status: "True",
                  reason: "AllServersReady",
                  message: "3 of 3",
                  lastTransitionTime: now,
                },
              ],
              inputs: {
                "render-cluster": formatRecord(
                  [{ apiVersion: "v1", kind: "Secret", namespace, name: `${name}-tls`, version: "" }],
                  created.metadata.generation,
                ),
              },
            },
          });
        }),
      );
    }
    process.stdout.write(
      `resync: ${objects} NatsClusters at rest made in ${Math.round(performance.now() - started)} ms\n`,
    );

    const { transport, take } = counting(env.transport);
    const kube = createKube(transport);
    const deps = {
      log: createLogger({ level: "silent" }),
      kube: async () => kube,
      recorder: async () => ({ record: async () => undefined }),
    };
    const tick = new CloudEvent<unknown>({
      id: "tick",
      type: "dev.knative.sources.ping",
      source: "/apis/v1/namespaces/nats-operator/pingsources/render-cluster-resync",
      datacontenttype: "application/json",
      target: "render-cluster",
      data: RESYNC_WORK,
    });
    const times: number[] = [];
    let requests: string[] = [];
    let summary = "";
    for (let i = 0; i < sweeps; i++) {
      const t0 = performance.now();
      const outcome = await dispatch(renderCluster, tick, deps);
      times.push(performance.now() - t0);
      requests = take();
      summary = outcome.kind === "done" ? (outcome.summary ?? "") : outcome.kind;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    process.stdout.write(
      `resync: one sweep over ${objects} objects at rest: median ${median.toFixed(0)} ms ` +
        `(min ${times[0]?.toFixed(0)}, max ${times.at(-1)?.toFixed(0)}, ${sweeps} sweeps); ` +
        `${requests.length} API requests (${[...new Set(requests)].join(", ")}); ${summary}\n`,
    );
  } finally {
    await env.stop();
  }
}

await main();
