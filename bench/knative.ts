/**
 * Cold path on real Knative Eventing: from the apply of a NatsStream to Ready=True at its
 * generation, 20 times one after another, with every event going ApiServerSource → Broker →
 * Trigger → sync-stream's pod over HTTP (the harness's Knative profile; functions run as
 * Deployments, there being no Serving yet, so "cold" is the event path, not a scale from zero).
 * The same 20 applies through the in-process runner (`npm start`'s event path) on a control
 * plane of its own, for the ratio. R1 streams on story 1's 3-server NatsCluster.
 */
import { parseAllDocuments, stringify } from "yaml";
import { createKube, type Kube } from "../shared/kube/client.ts";
import type { KubeObject } from "../shared/kube/object.ts";
import { createTransport } from "../shared/kube/transport.ts";
import { syncStream } from "../functions/sync-stream/index.ts";
import { startOperator } from "../test/integration/support/operator.ts";
import {
  startKnativeCluster,
  story1Cluster,
  waitClusterAtRest,
} from "../test/integration/knative/support/knative-cluster.ts";
import { startEnvironment } from "../test/integration/support/environment.ts";
import { waitFor } from "../test/harness/wait.ts";

const runs = Number(process.env.BENCH_KNATIVE_RUNS ?? 20);

type Stream = KubeObject & {
  metadata: { generation?: number };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
};

function streamObject(namespace: string, i: number): KubeObject & { spec: unknown } {
  const name = `cold-${String(i).padStart(2, "0")}`;
  return {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name, namespace },
    spec: { connectionRef: { name: "demo" }, name: name.toUpperCase(), subjects: [`${name}.>`], replicas: 1 },
  };
}

/** Applies each stream in turn and times it to Ready at its generation (polled every 20 ms). */
async function coldPaths(kube: Kube, namespace: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const object = streamObject(namespace, i);
    const started = performance.now();
    await kube.apply(object, "bench-knative");
    await waitFor(
      `${object.metadata.name} Ready`,
      async () => {
        const s = await kube.get<Stream>({ ...object, namespace, name: object.metadata.name });
        return (
          s?.status?.observedGeneration === s?.metadata.generation &&
          s?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
        );
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    times.push(performance.now() - started);
  }
  return times;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function onKnative(): Promise<number[]> {
  const k = await startKnativeCluster({ serving: false });
  try {
    await k.apply(story1Cluster("bench"));
    await k.installOperator();
    await waitClusterAtRest(k, "bench", 300_000);
    process.env.KUBECONFIG = k.harness.kubeconfig;
    const kube = createKube(await createTransport());
    return await coldPaths(kube, "bench");
  } finally {
    delete process.env.KUBECONFIG;
    await k.stop();
  }
}

async function inProcess(): Promise<number[]> {
  const env = await startEnvironment({ profile: "cluster" });
  try {
    const operator = await startOperator(env.transport, {
      extraFunctions: [syncStream],
      extraKinds: ["NatsStream", "NatsConnection"],
    });
    try {
      const namespace = await env.namespace("bench");
      // Story 1's NatsCluster and NatsConnection; the namespace exists already.
      for (const doc of parseAllDocuments(story1Cluster(namespace))) {
        const object = doc.toJS() as KubeObject | null;
        if (object !== null && object.kind !== "Namespace") await env.kube.create(object);
      }
      await waitFor(
        "bench cluster Ready",
        async () => {
          const c = await env.kube.get<Stream>({
            apiVersion: "cluster.nats-operator.io/v1beta1",
            kind: "NatsCluster",
            namespace,
            name: "demo",
          });
          return c?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True");
        },
        { timeoutMs: 300_000 },
      );
      return await coldPaths(env.kube, namespace);
    } finally {
      await operator.stop();
    }
  } finally {
    await env.stop();
  }
}

const knative = await onKnative();
const local = await inProcess();
const row = (what: string, xs: number[]) =>
  `| ${what} | ${median(xs).toFixed(0)} ms | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms |`;
process.stdout.write(
  [
    `NatsStream apply → Ready, ${runs} runs each`,
    "| event path | median | range |",
    "|---|---|---|",
    row("real Knative Eventing (ApiServerSource → Broker → Trigger → pod)", knative),
    row("in-process runner", local),
    `ratio ${(median(knative) / median(local)).toFixed(2)}x`,
    stringify({ knative: knative.map(Math.round), local: local.map(Math.round) }),
  ].join("\n") + "\n",
);
