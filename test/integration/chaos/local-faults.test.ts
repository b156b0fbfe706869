// The event path under faults, in process: the scenarios of knative-faults.test.ts on the local
// runner's delivery with NATS_OPERATOR_FAULTS' faults (shared/local/faults.ts), without Knative.
// Each must end where a clean run ends: story 1's cluster at rest, a NatsStream Synced, and a
// rollout that restarts every server exactly once with at most one down at a time.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { syncStream } from "../../../functions/sync-stream/index.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, quickstart, readCluster, waitAtRest } from "../cluster/support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { faults, resyncPingSources } from "../support/resync.ts";
import { samplePods } from "../cluster/support/sampler.ts";
import { CORE, JS, resource, waitForCondition } from "../jetstream/support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;

beforeAll(async () => {
  env = await startEnvironment();
}, 60_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

/** The operator with the cluster functions and sync-stream, fed through `faults`. */
function startFaultyOperator(text: string): Promise<RunningOperator> {
  return startOperator(env.transport, {
    extraFunctions: [syncStream],
    extraKinds: ["NatsConnection", "NatsStream"],
    faults: faults(text),
  });
}

const streamKey = (namespace: string) => ({ apiVersion: JS, kind: "NatsStream", namespace, name: "orders" });

/** Story 1's NatsConnection to the cluster and an R3 stream on it, waited for until Synced. */
async function syncStreamOn(namespace: string, timeoutMs: number): Promise<void> {
  await env.kube.create(
    resource(CORE, "NatsConnection", namespace, "demo", { servers: [`nats://demo.${namespace}.svc:4222`] }),
  );
  await env.kube.create(
    resource(JS, "NatsStream", namespace, "orders", {
      connectionRef: { name: "demo" },
      name: "ORDERS",
      subjects: ["orders.>"],
      replicas: 3,
    }),
  );
  await waitForCondition(env.kube, streamKey(namespace), "Synced", "True", "MatchesSpec", timeoutMs);
}

/**
 * Deletes the stream while the operator still runs (its finalizer needs sync-stream), then the
 * namespace, so the next scenario's servers do not share the two cores with these.
 */
async function cleanUp(operator: RunningOperator | undefined, namespace: string | undefined): Promise<void> {
  if (namespace !== undefined) {
    await env.kube.delete(streamKey(namespace)).catch(() => undefined);
    await waitFor("the stream gone", async () => (await env.kube.get(streamKey(namespace))) === undefined, {
      timeoutMs: 60_000,
    }).catch(() => undefined);
  }
  await operator?.stop();
  if (namespace !== undefined)
    await env.transport.request("DELETE", `/api/v1/namespaces/${namespace}`).catch(() => undefined);
}

/** Prints the operator's last log lines when `work` fails, then fails as it did. */
async function orShowLog<T>(operator: RunningOperator, work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    process.stdout.write(operator.log.slice(-60).join(""));
    throw error;
  });
}

interface Rollout {
  revisions: { before: string | undefined; after: string | undefined };
  rolloutLeft: unknown;
  maxNotReady: number;
  restarts: string[];
  /** Pod uids seen per server from before the change until the cluster was at rest again. */
  podsSeen: Map<string, Set<string>>;
}

/** Changes the servers' memory (a restart of each) and samples the pods until the cluster is at rest again. */
async function rollOutMemory(operator: RunningOperator, namespace: string, memory: string): Promise<Rollout> {
  const before = await readCluster(env.kube, namespace);
  const sampler = samplePods(env.kube, namespace, "demo", 3);
  // The pods before the change, so a replacement shows as a second uid.
  await waitFor("the pods sampled", async () => sampler.podsSeen.size === 3, { timeoutMs: 10_000, intervalMs: 100 });
  await env.kube.patch(
    clusterKey(namespace),
    { spec: { resources: { requests: { cpu: "100m", memory }, limits: { memory } } } },
    "merge",
  );
  const replaced = async () =>
    sampler.podsSeen.size === 3 && [...sampler.podsSeen.values()].every((uids) => uids.size >= 2);
  const after = await orShowLog(
    operator,
    waitFor("every server replaced", replaced, { timeoutMs: 180_000 }).then(() =>
      waitAtRest(env.kube, namespace, 60_000),
    ),
  ).finally(() => sampler.stop());
  return {
    revisions: { before: before?.status?.config?.revision, after: after.status?.config?.revision },
    rolloutLeft: after.status?.rollout,
    maxNotReady: sampler.maxNotReady,
    restarts: sampler.restarts,
    podsSeen: sampler.podsSeen,
  };
}

/** What a clean rollout shows: a new revision, done, never two servers down, each restarted once. */
function expectOneServerAtATimeEachOnce(rollout: Rollout): void {
  expect(rollout.revisions.after).not.toBe(rollout.revisions.before);
  expect(rollout.rolloutLeft).toBeUndefined();
  expect(rollout.maxNotReady).toBeLessThanOrEqual(1);
  // Two pods per server, the one before and the one after: none skipped, none restarted twice.
  expect(Object.fromEntries([...rollout.podsSeen].map(([server, uids]) => [server, uids.size]))).toEqual({
    "demo-0": 2,
    "demo-1": 2,
    "demo-2": 2,
  });
}

describe("every event duplicated, reordered within 300 ms, four deliveries in flight per function", () => {
  let operator: RunningOperator;
  let ns: string;

  beforeAll(async () => {
    operator = await startFaultyOperator("duplicate=1,reorder=300ms,concurrency=4,seed=7");
    ns = await env.namespace("local-faults-dup");
  }, 30_000);

  afterAll(async () => {
    await cleanUp(operator, ns);
  }, 90_000);

  it("brings story 1's cluster to rest", async () => {
    await env.kube.create(quickstart(ns));
    await orShowLog(operator, waitAtRest(env.kube, ns, 150_000));
    expect(operator.faults.extraCopies).toBeGreaterThan(0);
  }, 160_000);

  it("syncs a NatsStream on it", async () => {
    await orShowLog(operator, syncStreamOn(ns, 60_000));
  }, 70_000);

  it("rolls a memory change out restarting every server exactly once, at most one down at a time", async () => {
    const rollout = await rollOutMemory(operator, ns, "320Mi");
    expectOneServerAtATimeEachOnce(rollout);
    await waitForCondition(env.kube, streamKey(ns), "Synced", "True", "MatchesSpec", 60_000);
    process.stdout.write(
      `local faults, duplicated: restart order ${rollout.restarts.join(", ")}, max not Ready ${rollout.maxNotReady}, ${operator.faults.decided} deliveries, ${operator.faults.extraCopies} extra copies\n`,
    );
  }, 260_000);
});

describe("30% of events dropped, recovered by the functions' polls and a resync every 5 s", () => {
  let operator: RunningOperator;
  let ns: string;

  beforeAll(async () => {
    operator = await startFaultyOperator("drop=0.3,seed=11");
    ns = await env.namespace("local-faults-drop");
    for (const source of await resyncPingSources(ns, "*/5 * * * * *")) await env.kube.create(source);
  }, 30_000);

  afterAll(async () => {
    await cleanUp(operator, ns);
  }, 90_000);

  it("brings story 1's cluster to rest", async () => {
    await env.kube.create(quickstart(ns));
    await orShowLog(operator, waitAtRest(env.kube, ns, 180_000));
    expect(operator.faults.dropped).toBeGreaterThan(0);
  }, 190_000);

  it("syncs a NatsStream on it", async () => {
    await orShowLog(operator, syncStreamOn(ns, 90_000));
  }, 100_000);

  it("rolls a memory change out restarting every server exactly once, at most one down at a time", async () => {
    const rollout = await rollOutMemory(operator, ns, "320Mi");
    expectOneServerAtATimeEachOnce(rollout);
    await waitForCondition(env.kube, streamKey(ns), "Synced", "True", "MatchesSpec", 60_000);
    const recoveries = operator.deliveries.filter(
      (d) => d.outcome.kind === "done" && /, [1-9]\d* not at rest delivered/.test(d.outcome.summary ?? ""),
    ).length;
    process.stdout.write(
      `local faults, dropped: restart order ${rollout.restarts.join(", ")}, max not Ready ${rollout.maxNotReady}, ${operator.faults.dropped} of ${operator.faults.decided} deliveries dropped, ${recoveries} resync ticks re-delivered objects\n`,
    );
  }, 260_000);
});
