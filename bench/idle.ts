/**
 * What an idle installation costs, on real Knative Serving and Eventing (the harness's Knative
 * profile): the operator installed by `helm install` of chart/, then N namespaces (20 by default),
 * each with a one-server JetStream NatsCluster at rest and 10 NatsStreams Synced. After the
 * scale-down window it counts, over an observation window (10 minutes by default): function pods
 * running, PingSources per namespace by name, function pods started (wake-ups) and the API
 * requests made by each function's service account and by the ApiServerSources' adapters (the API
 * server's audit log), per hour. Then the cold path: a change to one stream applied while no
 * function pod runs, timed until it is Synced at its generation, 10 times, each from zero pods.
 *
 * Knobs: BENCH_IDLE_NAMESPACES, BENCH_IDLE_STREAMS, BENCH_IDLE_WINDOW_MIN, BENCH_IDLE_COLD_RUNS.
 */
import { readFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { OPERATOR_AUDIT_LOG } from "../test/harness/control-plane.ts";
import {
  functionPods,
  helmInstallOperator,
  startKnativeCluster,
  type KnativeCluster,
} from "../test/integration/knative/support/knative-cluster.ts";
import { waitFor } from "../test/harness/wait.ts";

const namespaces = Number(process.env.BENCH_IDLE_NAMESPACES ?? 20);
const streamsPer = Number(process.env.BENCH_IDLE_STREAMS ?? 10);
const windowMin = Number(process.env.BENCH_IDLE_WINDOW_MIN ?? 10);
const coldRuns = Number(process.env.BENCH_IDLE_COLD_RUNS ?? 10);
const nsName = (i: number): string => `idle-${String(i).padStart(2, "0")}`;

function tenant(ns: string): string {
  const streams = Array.from(
    { length: streamsPer },
    (_, j) => `---
apiVersion: jetstream.nats-operator.io/v1beta1
kind: NatsStream
metadata: { name: s-${j}, namespace: ${ns} }
spec: { connectionRef: { name: demo }, name: S${j}, subjects: ["s${j}.>"], replicas: 1 }
`,
  ).join("");
  return `
apiVersion: cluster.nats-operator.io/v1beta1
kind: NatsCluster
metadata: { name: demo, namespace: ${ns} }
spec:
  version: "2.15.2"
  replicas: 1
  jetstream:
    volumeClaimTemplate: { spec: { resources: { requests: { storage: 1Gi } } } }
---
apiVersion: nats-operator.io/v1beta1
kind: NatsConnection
metadata: { name: demo, namespace: ${ns} }
spec:
  servers: ["nats://demo.${ns}.svc:4222"]
${streams}`;
}

/**
 * Knative rolls the ApiServerSources' adapters over when a namespace appears: the namespaces are
 * made first, as a platform team would, and the tenants applied once every adapter runs with them,
 * so that the figures are of the operator rather than of 60 adapter restarts on 2 cores.
 */
async function createNamespaces(k: KnativeCluster): Promise<void> {
  const names = Array.from({ length: namespaces }, (_, i) => nsName(i));
  await k.apply(names.map((ns) => `apiVersion: v1\nkind: Namespace\nmetadata: { name: ${ns} }\n`).join("---\n"));
  const last = names[names.length - 1] ?? "";
  await waitFor(
    "every ApiServerSource adapter watching the new namespaces",
    async () => {
      const out = await k.kubectl(
        "get",
        "deployments",
        "-n",
        "nats-operator",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name} {.metadata.generation}/{.status.observedGeneration} {.status.updatedReplicas}/{.status.availableReplicas}/{.status.replicas} {.spec.template.spec.containers[0].env}{"\\n"}{end}',
      );
      const adapters = out.split("\n").filter((l) => l.startsWith("apiserversource-"));
      const rolledOut = (l: string) => {
        const [, generations = "", replicas = ""] = l.split(" ");
        const [generation, observed] = generations.split("/");
        return generation === observed && replicas === "1/1/1";
      };
      return adapters.length === 3 && adapters.every((l) => l.includes(last) && rolledOut(l)) ? true : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 2_000 },
  );
}

async function waitZeroPods(k: KnativeCluster): Promise<void> {
  await waitFor("no function pod running", async () => ((await functionPods(k)).size === 0 ? true : undefined), {
    timeoutMs: 600_000,
    intervalMs: 1_000,
  });
}

async function countAtRest(k: KnativeCluster): Promise<{ clusters: number; streams: number }> {
  const clusters = await k.kubectl(
    "get",
    "natsclusters",
    "-A",
    "-o",
    'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
  );
  const streams = await k.kubectl(
    "get",
    "natsstreams",
    "-A",
    "-o",
    'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Synced")].status}{"\\n"}{end}',
  );
  const count = (s: string) => s.split("\n").filter((l) => l === "True").length;
  return { clusters: count(clusters), streams: count(streams) };
}

/**
 * Requests completed between two instants, by service account of the namespace nats-operator
 * (`nats-operator-source` is the ApiServerSources' adapters; the others are the functions').
 */
async function requestsByAccount(k: KnativeCluster, from: number, to: number): Promise<Map<string, number>> {
  const text = await readFile(join(k.harness.workDir, "logs", OPERATOR_AUDIT_LOG), "utf8").catch(() => "");
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const entry = JSON.parse(line) as { user?: { username?: string }; stage?: string; stageTimestamp?: string };
    if (entry.stage !== "ResponseComplete") continue;
    const account = (entry.user?.username ?? "").replace(/^system:serviceaccount:nats-operator:/, "");
    const at = Date.parse(entry.stageTimestamp ?? "");
    if (at >= from && at < to) counts.set(account, (counts.get(account) ?? 0) + 1);
  }
  return counts;
}

/** `name (schedule)` → how many namespaces have it, for the PingSources outside nats-operator. */
async function tenantPingSources(k: KnativeCluster): Promise<Map<string, number>> {
  const out = await k.kubectl(
    "get",
    "pingsources",
    "-A",
    "-o",
    'jsonpath={range .items[*]}{.metadata.namespace} {.metadata.name} {.spec.schedule}{"\\n"}{end}',
  );
  const counts = new Map<string, number>();
  for (const line of out.split("\n").filter((l) => l !== "" && !l.startsWith("nats-operator "))) {
    const [, name = "", ...cron] = line.split(" ");
    // Cluster-owned schedules carry the cluster's name; a namespace's own are named by function.
    const key = `${name.replace(/^demo-/, "<cluster>-")} (${cron.join(" ")})`.replace(
      /\(\d+ \d+ \d+ \d+ \*\)/,
      "(yearly)",
    );
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

async function coldPath(k: KnativeCluster, run: number): Promise<number> {
  await waitZeroPods(k);
  const ns = nsName(0);
  const started = performance.now();
  await k.kubectl(
    "patch",
    "natsstream",
    "s-0",
    "-n",
    ns,
    "--type=merge",
    "-p",
    JSON.stringify({ spec: { description: `cold path ${run}` } }),
  );
  await waitFor(
    "s-0 Synced at its generation",
    async () => {
      const out = await k.kubectl(
        "get",
        "natsstream",
        "s-0",
        "-n",
        ns,
        "-o",
        'jsonpath={.metadata.generation} {.status.observedGeneration} {.status.conditions[?(@.type=="Synced")].status}',
      );
      const [generation, observed, synced] = out.split(" ");
      return generation === observed && synced === "True" ? true : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 100 },
  );
  return performance.now() - started;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const k = await startKnativeCluster({ serving: true });
try {
  const t0 = performance.now();
  await helmInstallOperator(k);
  await createNamespaces(k);
  const applied = performance.now();
  for (let i = 0; i < namespaces; i++) await k.apply(tenant(nsName(i)));
  await waitFor(
    "every cluster Ready and every stream Synced",
    async () => {
      const c = await countAtRest(k);
      return c.clusters === namespaces && c.streams === namespaces * streamsPer ? true : undefined;
    },
    { timeoutMs: 1_800_000, intervalMs: 5_000 },
  );
  const settledS = (performance.now() - applied) / 1000;
  const installS = (applied - t0) / 1000;
  const idleStart = performance.now();
  await waitZeroPods(k);
  const scaleDownS = (performance.now() - idleStart) / 1000;

  const from = Date.now();
  const seen = new Set<string>();
  let mostRunning = 0;
  while (Date.now() - from < windowMin * 60_000) {
    const pods = await functionPods(k);
    mostRunning = Math.max(mostRunning, pods.size);
    for (const uid of pods.keys()) seen.add(uid);
    await new Promise((r) => setTimeout(r, 2_000));
  }
  const to = Date.now();
  const podsAtEnd = (await functionPods(k)).size;
  const requests = await requestsByAccount(k, from, to);
  const pings = await tenantPingSources(k);
  const resyncTicks = (
    await k.kubectl("get", "pingsources", "-n", "nats-operator", "-o", "jsonpath={.items[*].metadata.name}")
  )
    .split(" ")
    .filter((n) => n !== "").length;
  const perHour = (n: number) => ((n * 60) / windowMin).toFixed(0);

  const cold: number[] = [];
  for (let run = 0; run < coldRuns; run++) cold.push(await coldPath(k, run));

  const functionsTotal = [...requests]
    .filter(([account]) => account !== "nats-operator-source")
    .reduce((sum, [, n]) => sum + n, 0);
  const byFunction = [...requests]
    .filter(([account]) => account !== "nats-operator-source")
    .sort(([, a], [, b]) => b - a)
    .map(([account, n]) => `${account.replace(/^nats-operator-/, "")} ${perHour(n)}`)
    .join(", ");
  console.log(
    `\n## Idle cost on Knative Serving (${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)})\n`,
  );
  console.log(
    `${namespaces} namespaces × (1-server JetStream NatsCluster + ${streamsPer} NatsStreams); helm install ${installS.toFixed(0)} s; every cluster Ready and stream Synced ${settledS.toFixed(0)} s after the tenants were applied; no function pod ${scaleDownS.toFixed(0)} s later.\n`,
  );
  console.log("| measure | value |");
  console.log("|---|---|");
  console.log(
    `| function pods running at the end of a ${windowMin}-minute idle window | ${podsAtEnd} (at most ${mostRunning} at once) |`,
  );
  console.log(
    `| PingSources in the ${namespaces} tenant namespaces | ${[...pings].map(([key, n]) => `${n} × ${key}`).join(", ") || "0"} |`,
  );
  console.log(`| PingSources in nats-operator (the resync ticks) | ${resyncTicks} |`);
  console.log(`| function pods started (wake-ups) per hour | ${perHour(seen.size)} |`);
  console.log(`| API requests of the functions per hour | ${perHour(functionsTotal)} (${byFunction}) |`);
  console.log(
    `| API requests of the ApiServerSource adapters per hour (watches renewed) | ${perHour(requests.get("nats-operator-source") ?? 0)} |`,
  );
  console.log(
    `| cold path: stream change to Synced from zero pods, median of ${coldRuns} | ${(median(cold) / 1000).toFixed(2)} s (${(Math.min(...cold) / 1000).toFixed(2)}–${(Math.max(...cold) / 1000).toFixed(2)} s) |`,
  );
} finally {
  await k.stop();
}
