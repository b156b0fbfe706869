// A control plane running Knative Eventing with the operator installed from knative/, driven
// the way a user drives it: kubectl apply, kubectl get, kubectl delete.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureHelm } from "../../../harness/binaries.ts";
import { startControlPlane, stopControlPlane } from "../../../harness/control-plane.ts";
import { repoRoot } from "../../../harness/paths.ts";
import type { HarnessState } from "../../../harness/state.ts";
import { installOperatorOnEventing } from "./operator-on-eventing.ts";
import { waitFor } from "../../../harness/wait.ts";

const run = promisify(execFile);

export interface KnativeCluster {
  harness: HarnessState;
  kubectl(...args: string[]): Promise<string>;
  apply(yaml: string): Promise<void>;
  /** `type → status/reason` of the object's conditions. */
  conditions(resource: string, namespace: string, name: string): Promise<Record<string, string>>;
  /** Installs the operator's manifests of knative/ without Serving; the resync ticks every minute. */
  installOperator(): Promise<void>;
  /** Runs the harness's helm (test/infra/build-helm.sh) against this control plane. */
  helm(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A control plane with Knative Eventing; with `serving`, Knative Serving and Traefik as well
 * (functions then run as Knative Services); without, the functions run as Deployments
 * (operator-on-eventing.ts) and Serving's start-up is saved.
 */
export async function startKnativeCluster(options: { serving: boolean }): Promise<KnativeCluster> {
  const harness = await startControlPlane({ profile: "knative", serving: options.serving, log: () => undefined });
  const kubectlPath = join(harness.binDir, "kubectl");
  let applied = 0;
  const kubectl = async (...args: string[]): Promise<string> =>
    (await run(kubectlPath, [`--kubeconfig=${harness.kubeconfig}`, ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  return {
    harness,
    kubectl,
    async apply(yaml) {
      const file = join(harness.workDir, `apply-${++applied}.yaml`);
      await writeFile(file, yaml);
      await kubectl("apply", "--server-side", "-f", file);
    },
    async conditions(resource, namespace, name) {
      const out = await kubectl(
        "get",
        resource,
        name,
        "-n",
        namespace,
        "-o",
        'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}{"\\n"}{end}',
      );
      return Object.fromEntries(
        out
          .split("\n")
          .filter((l) => l.includes("="))
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
    },
    installOperator: () => installOperatorOnEventing(kubectlPath, harness.kubeconfig, harness.workDir, "* * * * *"),
    async helm(...args) {
      const home = join(harness.workDir, "helm");
      const env = {
        PATH: process.env["PATH"] ?? "",
        HOME: home,
        HELM_CACHE_HOME: join(home, "cache"),
        HELM_CONFIG_HOME: join(home, "config"),
        HELM_DATA_HOME: join(home, "data"),
        KUBECONFIG: harness.kubeconfig,
      };
      const helm = await ensureHelm(() => undefined);
      return (await run(helm, args, { cwd: repoRoot, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
    },
    stop: () => stopControlPlane(harness),
  };
}

/** Story 1's NatsCluster (3 servers, JetStream) in `namespace`, with its namespace and a NatsConnection to it. */
/**
 * `helm install --wait` of chart/ into `nats-operator`, as a user runs it, with helm's `values`
 * flags added (e.g. `["--set", "oidc.verifyDeliveries=true"]`). The harness has no registry: the
 * image `harness.local/nats-operator:test` runs bin/nats-operator.ts of the checkout.
 */
export async function helmInstallOperator(k: KnativeCluster, values: string[] = []): Promise<void> {
  await k.helm(
    "install",
    "nats-operator",
    join(repoRoot, "chart"),
    "-n",
    "nats-operator",
    "--create-namespace",
    "--wait",
    "--timeout=10m",
    "--set",
    "image.repository=harness.local/nats-operator",
    "--set",
    "image.tag=test",
    ...values,
  );
}

/** The running pods of the operator's Knative Services, uid → name. */
export async function functionPods(k: KnativeCluster): Promise<Map<string, string>> {
  const out = await k.kubectl(
    "get",
    "pods",
    "-n",
    "nats-operator",
    "-l",
    "serving.knative.dev/service",
    "-o",
    'jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.uid} {.metadata.name}{"\\n"}{end}',
  );
  return new Map(
    out
      .split("\n")
      .filter((l) => l.includes(" "))
      .map((l) => l.split(" ") as [string, string]),
  );
}

export function story1Cluster(namespace: string): string {
  return `
apiVersion: v1
kind: Namespace
metadata: { name: ${namespace} }
---
apiVersion: cluster.nats-operator.io/v1beta1
kind: NatsCluster
metadata: { name: demo, namespace: ${namespace} }
spec:
  version: "2.15.2"
  replicas: 3
  resources: { requests: { cpu: 100m, memory: 256Mi }, limits: { memory: 256Mi } }
  jetstream:
    volumeClaimTemplate: { spec: { storageClassName: standard, resources: { requests: { storage: 20Gi } } } }
---
apiVersion: nats-operator.io/v1beta1
kind: NatsConnection
metadata: { name: demo, namespace: ${namespace} }
spec:
  servers: ["nats://demo.${namespace}.svc:4222"]
`;
}

export function stream(namespace: string, name: string, streamName: string): string {
  return `
apiVersion: jetstream.nats-operator.io/v1beta1
kind: NatsStream
metadata: { name: ${name}, namespace: ${namespace} }
spec:
  connectionRef: { name: demo }
  name: ${streamName}
  subjects: ["${name}.>"]
  replicas: 3
`;
}

export async function waitClusterAtRest(k: KnativeCluster, namespace: string, timeoutMs: number): Promise<void> {
  await waitFor(
    `${namespace}/demo Ready and Settled`,
    async () => {
      const c = await k.conditions("natscluster", namespace, "demo");
      return c["Ready"]?.startsWith("True/") &&
        c["Settled"] === "True/AllGroupsCurrent" &&
        c["Progressing"] !== "True/RollingRestart"
        ? c
        : undefined;
    },
    { timeoutMs, intervalMs: 2_000 },
  );
}

export async function waitSynced(k: KnativeCluster, namespace: string, name: string, timeoutMs: number): Promise<void> {
  await waitFor(
    `${namespace}/${name} Synced`,
    async () =>
      (await k.conditions("natsstream", namespace, name))["Synced"] === "True/MatchesSpec" ? true : undefined,
    { timeoutMs, intervalMs: 2_000 },
  );
}

export interface RolloutWatch {
  /** The most servers not Ready at one time. */
  mostDown: number;
  /** Pod uids seen per server. */
  uids: Map<string, Set<string>>;
}

/**
 * Patches the cluster's memory (a restart of every server) and watches until every server was
 * replaced and the cluster is at rest again; `during` runs once the rollout has begun.
 */
export async function rollOut(
  k: KnativeCluster,
  namespace: string,
  memory: string,
  timeoutMs: number,
  during?: () => Promise<void>,
): Promise<RolloutWatch> {
  const pods = async (): Promise<Map<string, { uid: string; ready: boolean }>> => {
    const out = await k.kubectl(
      "get",
      "pods",
      "-n",
      namespace,
      "-l",
      "app.kubernetes.io/instance=demo",
      "-o",
      'jsonpath={range .items[*]}{.metadata.name}={.metadata.uid}/{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    );
    return new Map(
      out
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => {
          const [name = "", rest = ""] = l.split("=");
          const [uid = "", ready = ""] = rest.split("/");
          return [name, { uid, ready: ready === "True" }];
        }),
    );
  };
  const before = await pods();
  const watch: RolloutWatch = {
    mostDown: 0,
    uids: new Map([...before].map(([name, p]) => [name, new Set([p.uid])])),
  };
  await k.kubectl(
    "patch",
    "natscluster",
    "demo",
    "-n",
    namespace,
    "--type",
    "merge",
    "-p",
    JSON.stringify({ spec: { resources: { requests: { memory }, limits: { memory } } } }),
  );
  let began = false;
  await waitFor(
    `${namespace}/demo rolled out`,
    async () => {
      const now = await pods();
      watch.mostDown = Math.max(watch.mostDown, before.size - [...now.values()].filter((p) => p.ready).length);
      for (const [name, p] of now) watch.uids.set(name, (watch.uids.get(name) ?? new Set()).add(p.uid));
      const replaced = [...before].filter(([name, p]) => now.has(name) && now.get(name)?.uid !== p.uid).length;
      if (!began && replaced > 0 && during !== undefined) {
        began = true;
        await during();
      }
      const c = await k.conditions("natscluster", namespace, "demo");
      return (
        replaced === before.size && c["Progressing"] === "False/UpToDate" && c["Settled"] === "True/AllGroupsCurrent"
      );
    },
    { timeoutMs, intervalMs: 1_000 },
  );
  return watch;
}
