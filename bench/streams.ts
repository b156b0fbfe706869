/**
 * JetStream benchmark: 500 NatsStreams applied at once to a three-server
 * NATS cluster; time until every one is Ready, and the API server and
 * JetStream API requests sync-stream made per stream. sync-stream runs
 * in-process behind an ApiServerSource-like watch (test/integration/jetstream
 * support), against a real kube-apiserver and real nats-server 2.15.
 *
 * NACK (github.com/nats-io/nack) was to run side by side; the Go module proxy
 * answers 403 for it, so it is reported as not run.
 */
import { createKube } from "../shared/kube/client.ts";
import type { KubeObject } from "../shared/kube/object.ts";
import type { KubeTransport } from "../shared/kube/transport.ts";
import { jsApiRequestCount } from "../shared/nats/jsapi.ts";
import { startDriver } from "../test/integration/jetstream/support/driver.ts";
import { startEnvironment } from "../test/integration/support/environment.ts";
import { startNatsCluster } from "../test/integration/jetstream/support/nats-cluster.ts";

const streams = Number(process.env.BENCH_STREAMS ?? 500);
const replicas = Number(process.env.BENCH_STREAM_REPLICAS ?? 1);
const timeoutMs = Number(process.env.BENCH_STREAMS_TIMEOUT_MS ?? 600_000);

function counting(transport: KubeTransport): {
  transport: KubeTransport;
  count: () => number;
  byKind: Map<string, number>;
} {
  let requests = 0;
  const byKind = new Map<string, number>();
  return {
    transport: {
      ...transport,
      request: (...args: Parameters<KubeTransport["request"]>) => {
        requests++;
        const [method, path] = args;
        const kind = `${method} ${path.replace(/\/namespaces\/[^/]+/, "/namespaces/*").replace(/\/(s\d{4}|bench)(\/|$)/, "/*$2")}`;
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
        return transport.request(...args);
      },
    },
    count: () => requests,
    byKind,
  };
}

async function main(): Promise<void> {
  const env = await startEnvironment({ profile: "apiserver" });
  const nats = await startNatsCluster({ servers: 3, name: "bench" });
  const namespace = await env.namespace("bench-streams");
  const fn = counting(env.transport);
  const driver = startDriver(env.transport, createKube(fn.transport), [namespace]);
  try {
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "bench", namespace },
      spec: { servers: nats.urls },
    } as never);
    await new Promise((r) => setTimeout(r, 1_000));
    const apiBefore = fn.count();
    const natsBefore = jsApiRequestCount();
    const started = performance.now();
    const names = Array.from({ length: streams }, (_, i) => `s${String(i).padStart(4, "0")}`);
    // "At once": every create is in flight together, as `kubectl apply -f` of one file would be.
    await Promise.all(
      names.map((name) =>
        env.kube.create({
          apiVersion: "jetstream.nats-operator.io/v1beta1",
          kind: "NatsStream",
          metadata: { name, namespace },
          spec: {
            connectionRef: { name: "bench" },
            name: name.toUpperCase(),
            subjects: [`bench.${name}.>`],
            replicas,
            storage: "File",
            maxAge: "1h",
          },
        } as never),
      ),
    );
    const applied = performance.now() - started;
    let ready = 0;
    while (performance.now() - started < timeoutMs) {
      const items = await env.kube.list<
        KubeObject & { status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] } }
      >({
        apiVersion: "jetstream.nats-operator.io/v1beta1",
        kind: "NatsStream",
        namespace,
      });
      ready = items.filter(
        (o) =>
          o.status?.observedGeneration === o.metadata.generation &&
          o.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      ).length;
      if (ready === streams) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const allReady = performance.now() - started;
    await driver.settle(2_000, 60_000);
    const api = fn.count() - apiBefore;
    const natsRequests = jsApiRequestCount() - natsBefore;
    const deliveries = driver.deliveries.filter((d) => d.object.startsWith("NatsStream/")).length;
    const report = {
      benchmark: "streams",
      streams,
      replicas,
      natsServers: 3,
      ready,
      appliedMs: Math.round(applied),
      allReadyMs: Math.round(allReady),
      apiRequestsPerStream: Number((api / streams).toFixed(2)),
      natsRequestsPerStream: Number((natsRequests / streams).toFixed(2)),
      deliveriesPerStream: Number((deliveries / streams).toFixed(2)),
      nack: "not run: the Go module proxy answers 403 for github.com/nats-io/nack",
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.stdout.write(
      `streams: ${ready}/${streams} Ready (R${replicas}, 3 servers) in ${(allReady / 1000).toFixed(1)} s; ` +
        `${report.apiRequestsPerStream} API and ${report.natsRequestsPerStream} NATS requests per stream; NACK not run (not on the Go module proxy)\n`,
    );
    if (process.env.BENCH_VERBOSE) process.stdout.write(`${JSON.stringify(Object.fromEntries(fn.byKind), null, 1)}\n`);
    if (ready !== streams) process.exitCode = 1;
  } finally {
    await driver.stop();
    const { syncStream } = await import("../functions/sync-stream/index.ts");
    await syncStream.shutdown?.();
    await nats.stop();
    await env.stop();
  }
}

await main();
