/**
 * Rollout benchmark on the harness (real kube-apiserver, controller-manager, kubelet and
 * nats-servers): a memory change rolled over three servers. Reports, per step, the time from
 * the gate opening (as an independent observer sees it: every pod Ready, every server on the
 * target revision and the NATS cluster Settled) to the next restart starting, and the total
 * rollout time against the sum of the servers' own restart-and-settle times.
 * Targets: gate-to-restart <= one poll tick (10 s) + 1 s; total <= 1.1 x the sum.
 */
import type { KubeObject } from "../shared/kube/object.ts";
import { judgeSettled, mergeSnapshot, type Jsz, type Varz } from "../functions/step-rollout/rollout/snapshot.ts";
import { monitorUrl } from "../functions/cluster/index.ts";
import { startEnvironment } from "../test/integration/support/environment.ts";
import { startOperator } from "../test/integration/support/operator.ts";
import { clusterKey, quickstart, readCluster, waitAtRest } from "../test/integration/cluster/support/natscluster.ts";

type StatefulSet = KubeObject & { spec: { template: { metadata: { annotations?: Record<string, string> } } } };
type Pod = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

const TICK_MS = 10_000;
const servers = ["bench-0", "bench-1", "bench-2"];

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

const env = await startEnvironment({ profile: "cluster" });
const operator = await startOperator(env.transport);
try {
  const namespace = await env.namespace("bench");
  await env.kube.create(quickstart(namespace, "bench"));
  await waitAtRest(env.kube, namespace, 300_000, "bench").catch(async (error: unknown) => {
    const status = await waitAtRest(env.kube, namespace, 120_000, "bench").catch(() =>
      readCluster(env.kube, namespace, "bench"),
    );
    process.stderr.write(`${JSON.stringify(status?.status, null, 2)}\n${operator.log.slice(-30).join("")}\n`);
    throw error;
  });

  const templateRevision = async () => {
    const list = await env.kube.list<StatefulSet>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      labelSelector: "cluster.nats-operator.io/cluster=bench",
    });
    return new Map(
      list.map((s) => [
        s.metadata.name,
        s.spec.template.metadata.annotations?.["cluster.nats-operator.io/config-revision"] ?? "",
      ]),
    );
  };
  /** The gate as the function judges it, observed independently: `restarted` must report `target`. */
  const gateOpen = async (target: string, restarted: readonly string[]): Promise<boolean> => {
    const pods = await env.kube.list<Pod>({
      apiVersion: "v1",
      kind: "Pod",
      namespace,
      labelSelector: "cluster.nats-operator.io/cluster=bench",
    });
    const ready = pods.filter(
      (p) =>
        !p.metadata.deletionTimestamp && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
    );
    if (ready.length < servers.length) return false;
    const reports = await Promise.all(
      servers.map(async (server) => {
        const base = monitorUrl("bench", namespace, server);
        const [varz, jsz] = await Promise.all([
          getJson<Varz>(`${base}/varz`),
          getJson<Jsz>(`${base}/jsz?accounts=true&streams=true&consumers=true&raft=true`),
        ]);
        return { server, ...(varz ? { varz } : {}), ...(jsz ? { jsz } : {}) };
      }),
    );
    if (
      !reports.every(
        (r) =>
          r.varz !== undefined && (!restarted.includes(r.server) || r.varz.metadata?.["config_revision"] === target),
      )
    )
      return false;
    const snapshot = mergeSnapshot(servers, reports, "clustered");
    return (
      snapshot !== undefined && judgeSettled(snapshot).settled && servers.every((s) => snapshot.metaMembers.includes(s))
    );
  };

  const initial = await templateRevision();
  await env.kube.patch(
    clusterKey(namespace, "bench"),
    { spec: { resources: { requests: { cpu: "100m", memory: "384Mi" }, limits: { memory: "384Mi" } } } },
    "merge",
  );
  const patchedAt = performance.now();
  let target = "";
  const restartAt = new Map<string, number>();
  const openAt: number[] = [];
  let missed = 0;
  while (openAt.length < servers.length && performance.now() - patchedAt < 600_000) {
    // The gate first, judged for the servers restarted so far, then any restart that began.
    const checkedAt = performance.now();
    if (target && restartAt.size > openAt.length && (await gateOpen(target, [...restartAt.keys()])))
      openAt.push(checkedAt);
    const revisions = await templateRevision();
    const now = performance.now();
    for (const [name, revision] of revisions) {
      if (revision === initial.get(name) || restartAt.has(name)) continue;
      if (restartAt.size > openAt.length) {
        // The function stepped before this observer saw the gate open: count it as open now.
        openAt.push(now);
        missed++;
      }
      restartAt.set(name, now);
      target = revision;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const order = [...restartAt.entries()].sort((a, b) => a[1] - b[1]);
  const starts = order.map(([, t]) => t);
  const gateToRestart = starts.slice(1).map((start, i) => start - (openAt[i] ?? start));
  const ownTimes = starts.map((start, i) => (openAt[i] ?? start) - start);
  const total = (openAt[openAt.length - 1] ?? performance.now()) - (starts[0] ?? patchedAt);
  const sum = ownTimes.reduce((a, b) => a + b, 0);
  const status = await waitAtRest(env.kube, namespace, 120_000, "bench").catch(() =>
    readCluster(env.kube, namespace, "bench"),
  );
  const result = {
    benchmark: "rollout",
    servers: order.map(([name]) => name),
    patchToFirstRestartMs: Math.round((starts[0] ?? patchedAt) - patchedAt),
    restartAndSettleMs: ownTimes.map(Math.round),
    gateOpenToNextRestartMs: gateToRestart.map(Math.round),
    gateTargetMs: TICK_MS + 1000,
    totalRolloutMs: Math.round(total),
    sumOfOwnTimesMs: Math.round(sum),
    ratio: Number((total / sum).toFixed(3)),
    ratioTarget: 1.1,
    gateOpeningsSeenOnlyAtTheNextRestart: missed,
    finalProgressing: status?.status?.conditions?.find((c) => c.type === "Progressing")?.reason,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const ok = gateToRestart.every((ms) => ms <= TICK_MS + 1000) && result.ratio <= 1.1;
  process.stdout.write(
    `rollout benchmark: gate->restart ${gateToRestart.map((ms) => `${(ms / 1000).toFixed(1)}s`).join(", ")} (target <= 11s); total/sum ${result.ratio} (target <= 1.1) ${ok ? "MET" : "NOT MET"}\n`,
  );
} finally {
  await operator.stop();
  await env.stop();
}
process.exit(0);
