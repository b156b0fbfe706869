/**
 * JetStream benchmark, side by side with NACK (github.com/nats-io/nack, the
 * controller our users would otherwise pick for streams), in one run on one
 * control plane and one three-server NATS cluster (nats-server 2.15):
 * 500 R1 file streams, each side applied with one `kubectl apply
 * --server-side` of one file, timed from the start of the apply until every
 * object reads Ready=True with observedGeneration == generation (the test
 * ../shared/peers/nack/bench.sh applies, with its kubectl query and its 0.5 s
 * poll). Also counts the API server and JetStream API requests sync-stream
 * made per stream. sync-stream runs in this process, so the apply and the
 * polls are child processes that do not block it (NACK has a process of its
 * own). BENCH_TRACE=1 prints where the time went: per kind of API request,
 * when the requests started and ended and their latency, the most in flight,
 * new sockets, CPU and event-loop delay of this process.
 *
 * NACK runs first, so sync-stream is measured on the fuller etcd. It is
 * skipped (and said so) when ../shared/peers/nack is not beside the checkout
 * or BENCH_NACK=0.
 */
import { spawn, spawnSync } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { createKube } from "../shared/kube/client.ts";
import type { KubeObject } from "../shared/kube/object.ts";
import type { KubeTransport } from "../shared/kube/transport.ts";
import { jsApiRequestCount } from "../shared/nats/request.ts";
import { ensureBinaries } from "../test/harness/binaries.ts";
import { startOperator, syncStreamOnly, type RunningOperator } from "../test/integration/support/operator.ts";
import { startEnvironment } from "../test/integration/support/environment.ts";
import { startNatsCluster } from "../test/integration/jetstream/support/nats-cluster.ts";

const streams = Number(process.env.BENCH_STREAMS ?? 500);
const replicas = Number(process.env.BENCH_STREAM_REPLICAS ?? 1);
const timeoutMs = Number(process.env.BENCH_STREAMS_TIMEOUT_MS ?? 600_000);
const nackDir = resolve(import.meta.dirname, "..", "..", "shared", "peers", "nack");

/** One API request sync-stream made, for BENCH_TRACE: what, when it started and ended (ms, performance.now()). */
interface Traced {
  kind: string;
  start: number;
  end?: number;
  code?: number;
}

function counting(transport: KubeTransport): {
  transport: KubeTransport;
  count: () => number;
  byKind: Map<string, number>;
  traced: Traced[];
} {
  let requests = 0;
  const byKind = new Map<string, number>();
  const traced: Traced[] = [];
  return {
    transport: {
      ...transport,
      request: (...args: Parameters<KubeTransport["request"]>) => {
        requests++;
        const [method, path] = args;
        const kind = `${method} ${path.replace(/\/namespaces\/[^/]+/, "/namespaces/*").replace(/\/(s\d{4}|warmup)(\/|$)/, "/*$2")}`;
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
        const entry: Traced = { kind, start: performance.now() };
        traced.push(entry);
        const answer = transport.request(...args);
        answer.then(
          () => void (entry.end = performance.now()),
          (error: unknown) => {
            entry.end = performance.now();
            entry.code = (error as { code?: number }).code ?? -1;
          },
        );
        return answer;
      },
    },
    count: () => requests,
    byKind,
    traced,
  };
}

/** CPU time (user + system, ms) of this process's child processes by name: the API server, etcd, nats-server. */
function childCpuMs(): Record<string, number> {
  const ticks = 100; // USER_HZ
  const out: Record<string, number> = {};
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== process.pid) continue;
      out[name] = (out[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** BENCH_TRACE: where the time after the apply goes (request phases, latency, concurrency, sockets, CPU). */
function traceReport(traced: readonly Traced[], started: number, extra: Record<string, unknown>): string {
  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN);
  };
  const lines: string[] = [];
  const kinds = [...new Set(traced.map((t) => t.kind))];
  for (const kind of kinds) {
    const of = traced.filter((t) => t.kind === kind && t.start >= started);
    if (of.length === 0) continue;
    const starts = of.map((t) => t.start - started);
    const ends = of.map((t) => (t.end ?? NaN) - started);
    const latency = of.map((t) => (t.end ?? NaN) - t.start);
    const failed = new Map<number, number>();
    for (const t of of) if (t.code !== undefined) failed.set(t.code, (failed.get(t.code) ?? 0) + 1);
    lines.push(
      `${kind}: n=${of.length} start p0/p50/p100 ${q(starts, 0)}/${q(starts, 0.5)}/${q(starts, 1)} ms; ` +
        `end p0/p50/p100 ${q(ends, 0)}/${q(ends, 0.5)}/${q(ends, 1)} ms; latency p50/p90/p99/max ` +
        `${q(latency, 0.5)}/${q(latency, 0.9)}/${q(latency, 0.99)}/${q(latency, 1)} ms` +
        (failed.size ? `; failed ${JSON.stringify(Object.fromEntries(failed))}` : ""),
    );
  }
  const edges = traced
    .filter((t) => t.start >= started)
    .flatMap((t): [number, number][] => [
      [t.start, 1],
      [t.end ?? Infinity, -1],
    ])
    .sort((a, b) => a[0] - b[0]);
  let inFlight = 0;
  let maxInFlight = 0;
  for (const [, d] of edges) maxInFlight = Math.max(maxInFlight, (inFlight += d));
  lines.push(`max requests in flight ${maxInFlight}; ${JSON.stringify(extra)}`);
  return lines.join("\n") + "\n";
}

type Status = { observedGeneration?: number; conditions?: { type: string; status: string }[] };
const isReady = (o: KubeObject & { status?: Status }): boolean =>
  o.status?.observedGeneration === o.metadata.generation &&
  (o.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

const natsStream = (namespace: string, name: string) => ({
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name, namespace },
  spec: {
    connectionRef: { name: "bench" },
    name: `OURS_${name.toUpperCase()}`,
    subjects: [`bench.${name}.>`],
    replicas,
    storage: "File",
    maxAge: "1h",
  },
});

/** Runs a command without blocking this process's event loop; its stdout is returned. */
function run(command: string, args: readonly string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout }));
  });
}

/** Polled as ../shared/peers/nack/bench.sh polls (POLL_S 0.5): the same kubectl query and the same test. */
const pollMs = 500;
async function countReady(kubectl: string, namespace: string): Promise<number> {
  const { status, stdout } = await run(kubectl, [
    "get",
    "natsstreams.jetstream.nats-operator.io",
    "-n",
    namespace,
    "--chunk-size=0",
    "-o",
    'jsonpath={range .items[*]}{.metadata.name}{" "}{.metadata.generation}{" "}{.status.observedGeneration}{" "}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
  ]);
  if (status !== 0) return 0;
  return stdout.split("\n").filter((line) => {
    const [name, generation, observed, ready] = line.split(" ");
    return name !== "warmup" && generation !== undefined && generation === observed && ready === "True";
  }).length;
}

interface Side {
  elapsedS: number;
  applyS: number;
  ready: number;
}

function runNack(kubectl: string, natsUrls: string[]): Side | string {
  if (process.env.BENCH_NACK === "0") return "not run: BENCH_NACK=0";
  if (!existsSync(join(nackDir, "bench.sh"))) return `not run: ${nackDir} is not there`;
  const result = spawnSync("bash", [join(nackDir, "bench.sh")], {
    env: {
      ...process.env,
      KUBECTL: kubectl,
      NATS_URL: natsUrls.join(","),
      N: String(streams),
      REPLICAS: String(replicas),
    },
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const value = (key: string) =>
    Number(/^(\w+)=(.*)$/m.exec(result.stdout.split("\n").find((l) => l.startsWith(`${key}=`)) ?? "")?.[2]);
  const ready = /^ready=(\d+)\//m.exec(result.stdout)?.[1];
  if (result.status !== 0 || ready === undefined) return `failed (exit ${result.status}): ${result.stdout.trim()}`;
  return { elapsedS: value("elapsed_s"), applyS: value("apply_s"), ready: Number(ready) };
}

async function main(): Promise<void> {
  const env = await startEnvironment({ profile: "apiserver" });
  const kubectl = (await ensureBinaries(() => undefined)).kubectl;
  if (!kubectl) throw new Error("the test infrastructure built no kubectl");
  const nats = await startNatsCluster({ servers: 3, name: "bench" });
  let driver: RunningOperator | undefined;
  try {
    const nack = runNack(kubectl, nats.urls);

    const namespace = await env.namespace("bench-streams");
    const fn = counting(env.transport);
    driver = await startOperator(env.transport, syncStreamOnly(createKube(fn.transport), [namespace]));
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "bench", namespace },
      spec: { servers: nats.urls },
    } as never);
    const list = () =>
      env.kube.list<KubeObject & { status?: Status }>({
        apiVersion: "jetstream.nats-operator.io/v1beta1",
        kind: "NatsStream",
        namespace,
      });
    // As NACK's side does: one stream Ready first, so connections are up before the clock starts.
    await env.kube.create(natsStream(namespace, "warmup") as never);
    const warmupDeadline = performance.now() + 120_000;
    while (!(await list()).some(isReady)) {
      if (performance.now() > warmupDeadline) throw new Error("the warm-up stream was not Ready within 120 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    await driver.settle(1_000, 30_000);

    const names = Array.from({ length: streams }, (_, i) => `s${String(i).padStart(4, "0")}`);
    const file = join(mkdtempSync(join(tmpdir(), "bench-streams-")), "streams.yaml");
    writeFileSync(file, names.map((name) => stringify(natsStream(namespace, name))).join("---\n"));
    const apiBefore = fn.count();
    const natsBefore = jsApiRequestCount();
    let sockets = 0;
    const onSocket = () => void sockets++;
    diagnostics.subscribe("net.client.socket", onSocket);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpuBefore = process.cpuUsage();
    const serversBefore = childCpuMs();
    const started = performance.now();
    // Not spawnSync: sync-stream runs in this process, and a blocked event loop would hold every
    // event back until the apply ended (NACK, in a process of its own, reconciles during it).
    const applied = await run(kubectl, ["apply", "--server-side", "-f", file]);
    if (applied.status !== 0) throw new Error(`kubectl apply failed with exit code ${applied.status}`);
    const applyMs = performance.now() - started;
    let ready = 0;
    while (performance.now() - started < timeoutMs) {
      ready = await countReady(kubectl, namespace);
      if (ready === streams) break;
      await new Promise((r) => setTimeout(r, pollMs));
    }
    const allReadyMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const serversAfter = childCpuMs();
    loopDelay.disable();
    diagnostics.unsubscribe("net.client.socket", onSocket);
    if (process.env.BENCH_TRACE) {
      process.stdout.write(
        traceReport(fn.traced, started, {
          applyMs: Math.round(applyMs),
          allReadyMs: Math.round(allReadyMs),
          newSockets: sockets,
          cpuUserMs: Math.round(cpu.user / 1000),
          cpuSystemMs: Math.round(cpu.system / 1000),
          serverCpuMs: Object.fromEntries(
            Object.entries(serversAfter).map(([name, ms]) => [name, ms - (serversBefore[name] ?? 0)]),
          ),
          loopDelayP50Ms: Math.round(loopDelay.percentile(50) / 1e6),
          loopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e6),
          loopDelayMaxMs: Math.round(loopDelay.max / 1e6),
        }),
      );
    }
    await driver.settle(2_000, 60_000);
    const api = fn.count() - apiBefore;
    const natsRequests = jsApiRequestCount() - natsBefore;
    const deliveries = driver.deliveries.filter((d) => /^NatsStream\/s\d{4}$/.test(d.object)).length;
    const ours: Side = { elapsedS: allReadyMs / 1000, applyS: applyMs / 1000, ready };
    const ratio = typeof nack === "string" ? undefined : ours.elapsedS / nack.elapsedS;
    const report = {
      benchmark: "streams",
      streams,
      replicas,
      natsServers: 3,
      syncStream: {
        ...ours,
        apiRequestsPerStream: round(api / streams),
        natsRequestsPerStream: round(natsRequests / streams),
        deliveriesPerStream: round(deliveries / streams),
      },
      nack,
      ...(ratio !== undefined ? { syncStreamOverNack: round(ratio) } : {}),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.stdout.write(
      `streams: sync-stream ${ready}/${streams} Ready (R${replicas}, 3 servers) in ${ours.elapsedS.toFixed(2)} s (apply ${ours.applyS.toFixed(2)} s); ` +
        `${report.syncStream.apiRequestsPerStream} API and ${report.syncStream.natsRequestsPerStream} NATS requests per stream\n` +
        (typeof nack === "string"
          ? `streams: NACK ${nack}\n`
          : `streams: NACK ${nack.ready}/${streams} Ready in ${nack.elapsedS.toFixed(2)} s (apply ${nack.applyS.toFixed(2)} s); sync-stream/NACK ${ratio?.toFixed(2)}x\n`),
    );
    if (process.env.BENCH_VERBOSE) {
      process.stdout.write(`${JSON.stringify(Object.fromEntries(fn.byKind), null, 1)}\n`);
      const outcomes = new Map<string, number>();
      for (const d of driver.deliveries.filter((d) => /^NatsStream\/s\d{4}$/.test(d.object))) {
        const o = d.outcome;
        const what = `${d.type.split(".").pop()} ${o.kind}: ${(o.kind === "done" ? o.summary : o.kind === "skipped" ? o.reason : o.message)?.slice(0, 60)}`;
        outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
      }
      process.stdout.write(`${JSON.stringify(Object.fromEntries(outcomes), null, 1)}\n`);
    }
    if (ready !== streams) process.exitCode = 1;
  } finally {
    await driver?.stop();
    await nats.stop();
    await env.stop();
  }
}

const round = (n: number) => Number(n.toFixed(2));

await main();
