// Incident replay (issue 11, item 7): the CloudEvents a story-1 run delivered (three servers at
// rest, then a memory change rolled one server at a time), recorded as NATS_OPERATOR_EVENT_LOG
// records them, replayed with `nats-operator replay` against a fresh control plane holding the
// same objects, bring its NatsCluster to the status the run reached, step by step.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as catalog from "../../../functions/catalog.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";
import { readEventLog } from "../../../shared/local/replay.ts";
import { replayCommand } from "../../../shared/local/replay-command.ts";
import { createKube, type Kube } from "../../../shared/kube/client.ts";
import type { Condition } from "../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { createTransport } from "../../../shared/kube/transport.ts";
import { startControlPlane, stopControlPlane } from "../../harness/control-plane.ts";
import { defaultHostsFile } from "../../harness/hosts-file.ts";
import type { HarnessState } from "../../harness/state.ts";
import { clusterKey, quickstart, readCluster, waitAtRest } from "../cluster/support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { waitFor } from "../../harness/wait.ts";

/** The functions the recorded run had; the replay starts the same ones. */
const FUNCTIONS = "render-cluster,step-rollout";

let env: Environment;
let fresh: HarnessState | undefined;
let freshStart: Promise<HarnessState>;
let operator: RunningOperator | undefined;
let dir: string;

beforeAll(async () => {
  env = await startEnvironment();
  dir = await mkdtemp(join(tmpdir(), "story1-replay-"));
  // Started now, so that it comes up while the recorded run does.
  freshStart = startControlPlane({ profile: "cluster", log: () => undefined });
  freshStart.then((state) => (fresh = state)).catch(() => undefined);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
  await freshStart?.catch(() => undefined);
  if (fresh) await stopControlPlane(fresh);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 180_000);

/**
 * Story 1's NatsCluster, three servers with JetStream. Route TLS is off: its self-signed keys are
 * made anew on each control plane and the config revision is made of the certificate, so with it
 * the same replay would reach the same status under another revision.
 */
function story1Cluster(ns: string): KubeObject & { spec: Record<string, unknown> } {
  const cluster = quickstart(ns);
  return { ...cluster, spec: { ...cluster.spec, routes: { tls: { enabled: false } } } };
}

/** What the replay must reproduce: conditions, observed generation, revisions, servers. */
function statusOf(cluster: Cluster | undefined) {
  const status = cluster?.status;
  return {
    observedGeneration: status?.observedGeneration,
    conditions: ((status?.conditions ?? []) as Condition[])
      .map((c) => ({ type: c.type, status: c.status, reason: c.reason }))
      .sort((a, b) => a.type.localeCompare(b.type)),
    revision: status?.config?.revision,
    rolloutTargetRevision: status?.rollout?.targetRevision,
    servers: status?.servers?.map((s) => ({ name: s.name, ready: s.ready, configRevision: s.configRevision })),
  };
}

/** Runs `nats-operator replay <file>` against the cluster `kubeconfig` names, as a user would with KUBECONFIG. */
async function replay(file: string, kubeconfig: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const out = { write: (text: string) => lines.push(...text.split("\n").filter(Boolean)) };
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = kubeconfig;
  try {
    return { code: await replayCommand(catalog, { file, functions: FUNCTIONS, out }), lines };
  } finally {
    process.env.KUBECONFIG = previous;
  }
}

async function kubeFor(kubeconfig: string): Promise<Kube> {
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = kubeconfig;
  try {
    return createKube(await createTransport());
  } finally {
    process.env.KUBECONFIG = previous;
  }
}

/**
 * Deletes the recorded run's namespace and its servers at once. Both control planes resolve pod
 * names through /etc/hosts, and the fresh one will run pods of the same names in a namespace of
 * the same name: the old ones must be gone from the file before the replay looks for servers.
 */
async function removeRecordedRun(ns: string): Promise<void> {
  await env.transport.request("DELETE", `/api/v1/namespaces/${ns}`);
  await waitFor(
    "the recorded run's pods to be gone",
    async () => {
      const pods = await env.kube.list({ apiVersion: "v1", kind: "Pod", namespace: ns });
      for (const pod of pods) {
        await env.transport
          .request("DELETE", `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`, {
            query: { gracePeriodSeconds: 0 },
          })
          .catch(() => undefined);
      }
      return pods.length === 0;
    },
    { timeoutMs: 120_000 },
  );
  await waitFor(
    "the recorded run's names out of the hosts file",
    async () => !(await readFile(defaultHostsFile, "utf8")).includes(`.${ns}.svc`),
    { timeoutMs: 30_000 },
  );
}

const OUTCOMES = "done|skipped|conflict|retry|refused|malformed";

/** Story 1 step 02: the memory change rolled out one server at a time. */
const MEMORY_CHANGE = {
  spec: { resources: { requests: { cpu: "100m", memory: "512Mi" }, limits: { memory: "512Mi" } } },
};

/** Shared by the steps, in order, as in story 1. */
let namespace: string;
let eventLog: string;
/** The recorded run's NatsCluster at rest after step 01 (generation 1) and after step 02 (generation 2). */
let recorded: Cluster;
let rolled: Cluster;
let plane: HarnessState;
let kube: Kube;

/**
 * Replays the log while the fresh control plane catches up, until its NatsCluster shows `expected`:
 * the functions are level-triggered and an event only names an object, so a pass acts on what is
 * there then (pods start and restart between passes; the PingSource ticks in the log move a rollout).
 */
async function replayUntil(
  expected: ReturnType<typeof statusOf>,
  timeoutMs: number,
): Promise<ReturnType<typeof statusOf>> {
  const deadline = Date.now() + timeoutMs;
  let pass = 0;
  let reached = statusOf(await readCluster(kube, namespace));
  while (JSON.stringify(reached) !== JSON.stringify(expected) && Date.now() < deadline) {
    const started = Date.now();
    const { code, lines } = await replay(eventLog, plane.kubeconfig);
    reached = statusOf(await readCluster(kube, namespace));
    process.stdout.write(
      `replay pass ${++pass}: ${lines.length} deliveries, exit ${code}, ${Date.now() - started} ms; generation ${reached.observedGeneration} ${reached.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`).join(" ")}\n`,
    );
    if (JSON.stringify(reached) === JSON.stringify(expected)) break;
    // Until the fresh control plane moved (a pod started, a status was written); a JetStream
    // leader elected shows on no object, hence the bound.
    const before = await resourceVersions(kube, namespace);
    await waitFor("the fresh control plane to move", async () => (await resourceVersions(kube, namespace)) !== before, {
      timeoutMs: 15_000,
    }).catch(() => undefined);
  }
  return reached;
}

describe("incident replay of story 1", () => {
  it("records every delivery of a story-1 run (steps 01 and 02) to the event log, the rollout's PingSource ticks included", async () => {
    eventLog = join(dir, "events.jsonl");
    operator = await startOperator(env.transport, { eventLog });
    namespace = await env.namespace("replay");
    await env.kube.create(story1Cluster(namespace));
    const logged = (error: unknown) => {
      process.stdout.write(operator?.log.slice(-40).join("") ?? "");
      throw error;
    };
    recorded = await waitAtRest(env.kube, namespace, 240_000).catch(logged);
    await env.kube.patch(clusterKey(namespace), MEMORY_CHANGE, "merge");
    await waitFor(
      "the rollout to start",
      async () => (await readCluster(env.kube, namespace))?.status?.observedGeneration === 2,
      { timeoutMs: 60_000 },
    );
    rolled = await waitAtRest(env.kube, namespace, 600_000).catch(logged);
    await operator.stop();
    operator = undefined;
    const events = await readEventLog(eventLog);
    process.stdout.write(
      `recorded ${events.length} deliveries: ${JSON.stringify(countBy(events.map((e) => e.type)))}\n`,
    );
    expect(rolled.status?.config?.revision).not.toBe(recorded.status?.config?.revision);
    expect(events.some((e) => e["namespace"] === namespace && e["kind"] === "NatsCluster")).toBe(true);
    expect(events.some((e) => e["namespace"] === namespace && e["kind"] === "StatefulSet")).toBe(true);
    expect(
      events.some((e) => e.type === "dev.knative.sources.ping" && e.source.includes(`/namespaces/${namespace}/`)),
    ).toBe(true);
  }, 900_000);

  it("replayed on a fresh control plane holding the same objects, reaches the status step 01 reached", async () => {
    await removeRecordedRun(namespace);
    // The same objects: the namespace and the NatsCluster's step-01 spec, under the same names, no status.
    plane = await freshStart;
    kube = await kubeFor(plane.kubeconfig);
    await kube.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await kube.create({
      apiVersion: recorded.apiVersion,
      kind: recorded.kind,
      metadata: { name: recorded.metadata.name, namespace },
      spec: recorded.spec,
    } as KubeObject);
    expect(await replayUntil(statusOf(recorded), 480_000)).toEqual(statusOf(recorded));
  }, 600_000);

  it("replayed again at rest, changes nothing, exits 0 and prints each recorded event's outcome", async () => {
    const expected = statusOf(recorded);
    expect(expected.conditions).not.toEqual([]);
    const { code, lines } = await replay(eventLog, plane.kubeconfig);
    process.stdout.write(
      `at rest: ${JSON.stringify(
        countBy(
          lines.map((line) =>
            line
              .split(" ")
              .slice(0, 2)
              .concat(line.split(" ")[4] ?? "")
              .join(" "),
          ),
        ),
      )}\n${lines.slice(0, 4).join("\n")}\n`,
    );
    expect(code).toBe(0);
    expect(statusOf(await readCluster(kube, namespace))).toEqual(expected);
    const delivery = new RegExp(`^\\d{3} (render-cluster|step-rollout) \\S+ \\S+ (${OUTCOMES})(: .*)?$`);
    expect(lines.filter((line) => !delivery.test(line))).toEqual([]);
    const unnamed = (await readEventLog(eventLog)).filter(
      (event) => !lines.some((line) => line.split(" ", 4).slice(2).join(" ") === `${event.type} ${event.id}`),
    );
    expect(unnamed.map((event) => `${event.type} ${event.id}`)).toEqual([]);
  }, 300_000);

  it("with step 02's memory change made there too, replayed, rolls out to the status step 02 reached", async () => {
    await kube.patch(clusterKey(namespace), MEMORY_CHANGE, "merge");
    expect(await replayUntil(statusOf(rolled), 600_000)).toEqual(statusOf(rolled));
  }, 700_000);
});

/** The resourceVersions of the namespace's StatefulSets, Pods and NatsClusters, as one string. */
async function resourceVersions(client: Kube, ns: string): Promise<string> {
  const kinds = [
    { apiVersion: "apps/v1", kind: "StatefulSet" },
    { apiVersion: "v1", kind: "Pod" },
    { apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster" },
  ];
  // A list's items carry no kind of their own.
  const lists = await Promise.all(
    kinds.map(async (k) =>
      (await client.list({ ...k, namespace: ns })).map(
        (o) => `${k.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`,
      ),
    ),
  );
  return lists.flat().join(",");
}

function countBy(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
