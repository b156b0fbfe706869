// harness: real node
// The harness's node is a real one: containerd runs each pod's containers, and
// `kubectl logs` and `kubectl exec` reach them through the kubelet. Story 1's
// NatsCluster runs its two containers per server (nats and the exporter), and
// the exporter's metrics answer through a Service, as on any cluster. Its
// NetworkPolicy is enforced (kube-router): pods elsewhere reach only what it
// admits.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { quickstart, waitAtRest } from "../cluster/support/natscluster.ts";
import { waitFor } from "../../harness/wait.ts";
import { currentHarness } from "../../harness/state.ts";
import { connectFromContainer, type ConnectResult } from "../../harness/node/pod-network.ts";
import { startProbePod } from "../support/probe-pod.ts";
import { connect } from "@nats-io/transport-node";
import type { KubeObject } from "../../../shared/kube/index.ts";

const run = promisify(execFile);

interface Pod extends KubeObject {
  spec?: { containers?: { name: string; args?: string[] }[] };
  status?: {
    qosClass?: string;
    podIP?: string;
    containerStatuses?: { name: string; containerID?: string; ready: boolean }[];
  };
}
interface Node extends KubeObject {
  status?: { nodeInfo?: { containerRuntimeVersion?: string } };
}
interface Service extends KubeObject {
  spec?: { clusterIP?: string; ports?: { name?: string; port: number; targetPort?: number | string }[] };
}

/** The memory limit the kernel enforces on a container, read from the kubelet's cgroup for it. */
async function enforcedMemoryLimit(pod: Pod, container: string): Promise<number> {
  const harness = await currentHarness();
  const id = pod.status?.containerStatuses?.find((c) => c.name === container)?.containerID?.split("://")[1];
  const qos = (pod.status?.qosClass ?? "").toLowerCase();
  const dir = `/sys/fs/cgroup/memory/harness-${harness?.runId ?? ""}/kubepods/${qos}/pod${pod.metadata?.uid ?? ""}/${id ?? ""}`;
  return Number((await readFile(`${dir}/memory.limit_in_bytes`, "utf8")).trim());
}

let env: Environment;
let operator: RunningOperator;
let namespace: string;
/** The namespace the operator counts as its own (POD_NAMESPACE), and one exporter.from admits. */
let operatorNamespace: string;
let scraperNamespace: string;
const podNamespaceBefore = process.env["POD_NAMESPACE"];

const kubectl = async (...args: string[]): Promise<string> => {
  const bin = process.env["NATS_OPERATOR_HARNESS_BIN"];
  if (bin === undefined) throw new Error("NATS_OPERATOR_HARNESS_BIN is not set: run through the harness");
  return (await run(join(bin, "kubectl"), ["-n", namespace, ...args], { timeout: 300_000 })).stdout;
};

beforeAll(async () => {
  env = await startEnvironment();
  operatorNamespace = await env.namespace("real-node-operator");
  scraperNamespace = await env.namespace("real-node-scraper");
  namespace = await env.namespace("real-node");
  // As in a pod of the operator's namespace: render-cluster admits that namespace to the
  // monitoring and metrics ports.
  process.env["POD_NAMESPACE"] = operatorNamespace;
  operator = await startOperator(env.transport);
  const cluster = quickstart(namespace);
  cluster.spec["exporter"] = {
    from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": scraperNamespace } } }],
  };
  await env.kube.create(cluster);
  await waitAtRest(env.kube, namespace, 240_000);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
  if (podNamespaceBefore === undefined) delete process.env["POD_NAMESPACE"];
  else process.env["POD_NAMESPACE"] = podNamespaceBefore;
}, 120_000);

describe("the real node", () => {
  it("reports containerd as its container runtime", async () => {
    const nodes = await env.kube.list<Node>({ apiVersion: "v1", kind: "Node" });
    expect(nodes.map((n) => n.status?.nodeInfo?.containerRuntimeVersion)).toEqual([
      expect.stringMatching(/^containerd:\/\/2\./),
    ]);
  });

  it("runs each server's nats and exporter containers in containerd", async () => {
    const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: "demo-0-0" });
    expect(pod?.status?.containerStatuses?.map((c) => [c.name, c.ready, c.containerID?.split("://")[0]])).toEqual([
      ["exporter", true, "containerd"],
      ["nats", true, "containerd"],
    ]);
  });

  it("runs the servers in a namespace that enforces the restricted Pod Security Standard", async () => {
    const ns = (await env.transport.request("GET", `/api/v1/namespaces/${namespace}`)) as KubeObject;
    expect(ns.metadata?.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    const pods = await env.kube.list<Pod>({ apiVersion: "v1", kind: "Pod", namespace });
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual(["demo-0-0", "demo-1-0", "demo-2-0"]);
  });

  it("shows a server's start lines in kubectl logs", async () => {
    expect(await kubectl("logs", "demo-0-0", "-c", "nats")).toMatch(/Starting nats-server[\s\S]*Version:\s+2\.15\.2/);
  });

  it("runs nats-server --version in the server's container through kubectl exec", async () => {
    expect(await kubectl("exec", "demo-0-0", "-c", "nats", "--", "nats-server", "--version")).toBe(
      "nats-server: v2.15.2\n",
    );
  });

  it("holds each container to its memory limit: the exporter's default 128Mi, nats's 256Mi", async () => {
    const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: "demo-0-0" });
    if (pod === undefined) throw new Error("demo-0-0 is gone");
    expect(await enforcedMemoryLimit(pod, "exporter")).toBe(128 * 1024 * 1024);
    expect(await enforcedMemoryLimit(pod, "nats")).toBe(256 * 1024 * 1024);
  });

  it("takes clients on the client Service's port, through its cluster IP and its name", async () => {
    const service = await env.kube.get<Service>({ apiVersion: "v1", kind: "Service", namespace, name: "demo" });
    expect(service?.spec?.ports?.find((p) => p.name === "client")).toMatchObject({ port: 4222 });
    for (const server of [`nats://${service?.spec?.clusterIP ?? ""}:4222`, `nats://demo.${namespace}.svc:4222`]) {
      const nc = await connect({ servers: server, timeout: 10_000 });
      expect(await nc.rtt()).toBeGreaterThanOrEqual(0);
      await nc.close();
    }
  });

  it("answers the exporter's metrics through a Service", async () => {
    await env.kube.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "demo-metrics", namespace },
      spec: {
        selector: { "app.kubernetes.io/instance": "demo" },
        ports: [{ name: "metrics", port: 80, targetPort: "metrics" }],
      },
    } as KubeObject);
    const service = await env.kube.get<Service>({ apiVersion: "v1", kind: "Service", namespace, name: "demo-metrics" });
    const metrics = await waitFor(
      "the exporter's metrics through the Service",
      async () => {
        const response = await fetch(`http://${service?.spec?.clusterIP ?? ""}/metrics`);
        return response.ok ? response.text() : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // One family per flag render-cluster passes: -varz, -connz, -routez, -subz, -healthz, -jsz=all.
    for (const family of [
      "gnatsd_varz_",
      "gnatsd_connz_",
      "gnatsd_routez_",
      "gnatsd_subsz_",
      "gnatsd_healthz_",
      "jetstream_",
    ])
      expect(metrics).toMatch(new RegExp(`^${family}`, "m"));
  });

  it("enforces the cluster's NetworkPolicy: routes only between its servers, monitoring and metrics as rendered", async () => {
    const harness = await currentHarness();
    if (harness === undefined) throw new Error("no harness state");
    const server = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: "demo-0-0" });
    const ip = server?.status?.podIP ?? "";
    const outsiderNamespace = await env.namespace("real-node-outsider");
    const ports = { client: 4222, route: 6222, monitor: 8222, metrics: 7777 } as const;
    const expected: [string, string, Record<keyof typeof ports, boolean>][] = [
      ["another namespace", outsiderNamespace, { client: true, route: false, monitor: false, metrics: false }],
      ["the servers' namespace", namespace, { client: true, route: false, monitor: false, metrics: false }],
      ["exporter.from", scraperNamespace, { client: true, route: false, monitor: false, metrics: true }],
      ["the operator's namespace", operatorNamespace, { client: true, route: false, monitor: true, metrics: true }],
    ];
    const probes = await Promise.all(expected.map(([, podNamespace]) => startProbePod(env.kube, podNamespace)));
    const reached = async (): Promise<Record<string, Record<string, ConnectResult>>> =>
      Object.fromEntries(
        await Promise.all(
          expected.map(async ([from], i) => {
            const containerID = probes[i]?.containerID ?? "";
            const row: Record<string, ConnectResult> = {};
            for (const [port, number] of Object.entries(ports))
              row[port] = await connectFromContainer(harness, containerID, ip, number);
            return [from, row] as const;
          }),
        ),
      );
    const want = Object.fromEntries(
      expected.map(([from, , open]) => [
        from,
        Object.fromEntries(Object.entries(open).map(([port, ok]) => [port, ok ? "connected" : "ECONNREFUSED"])),
      ]),
    );
    // kube-router writes a new pod's rules on its next sync: asked until they hold.
    let last: Record<string, Record<string, ConnectResult>> = {};
    await waitFor(
      "the policy enforced as rendered",
      async () => {
        last = await reached();
        return JSON.stringify(last) === JSON.stringify(want);
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    ).catch(() => undefined);
    expect(last).toEqual(want);
    // The servers still route to each other through it, and the operator, from the host, reads
    // their monitoring port (the host's traffic is the node's own: test/harness/README.md).
    const routez = (await (await fetch(`http://${ip}:${ports.monitor}/routez`)).json()) as { num_routes: number };
    expect(routez.num_routes).toBeGreaterThanOrEqual(2);
  }, 180_000);

  // Last: it takes a server down.
  it("lets a deleted server go through lame-duck mode within its termination grace", async () => {
    const bin = process.env["NATS_OPERATOR_HARNESS_BIN"] ?? "";
    const follower = spawn(join(bin, "kubectl"), ["-n", namespace, "logs", "-f", "demo-2-0", "-c", "nats", "--tail=1"]);
    let log = "";
    follower.stdout.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    try {
      // Following once it has printed the last line so far (--tail=1): the lame-duck line that the
      // delete brings cannot come before the follower is attached.
      await waitFor("kubectl logs following", () => log.length > 0, { timeoutMs: 60_000 });
      const started = Date.now();
      await kubectl("delete", "pod", "demo-2-0", "--wait=true", "--timeout=300s");
      const seconds = (Date.now() - started) / 1000;
      await waitFor("the server's last lines", () => /Server Exiting/.test(log), { timeoutMs: 30_000 });
      expect(log).toMatch(/Entering lame duck mode, stop accepting new clients[\s\S]*Server Exiting/);
      // The pre-stop hook signals lame-duck mode; with no client to move, the server exits at once,
      // well inside the pod's 300 s grace, rather than being killed at its end.
      expect(seconds).toBeLessThan(300);
    } finally {
      follower.kill();
    }
  }, 330_000);
});
