// Acceptance: plain Kubernetes objects written here (not by the operator) - a
// ConfigMap, a headless Service and a 3-replica StatefulSet with a volume
// claim template - become 3 Running, Ready pods whose real nats-servers form
// one cluster over routes addressed by in-cluster DNS names, elect a
// JetStream meta leader, and keep their JetStream data when a pod is deleted
// and comes back.
import { afterAll, describe, expect, it } from "@jest/globals";
import { lookup } from "node:dns/promises";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AppsV1Api, CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager, jetstream } from "@nats-io/jetstream";
import { useNamespace, waitFor, waitForReadyPods, isPodReady } from "../../harness/index.ts";
import { httpGet } from "../../harness/http-check.ts";
import { compareVersions } from "../../harness/binaries.ts";
import { readState } from "../../harness/state.ts";

const ns = useNamespace("nats");
const replicas = 3;
const fqdn = (pod: string): string => `${pod}.nats.${ns.name}.svc.cluster.local`;

let nc: NatsConnection | undefined;
afterAll(async () => {
  await nc?.close().catch(() => undefined);
});

function natsConfig(namespace: string): string {
  const routes = Array.from(
    { length: replicas },
    (_, i) => `    nats://nats-${i}.nats.${namespace}.svc.cluster.local:6222`,
  ).join("\n");
  return [
    "port: 4222",
    "http_port: 8222",
    "server_name: $SERVER_NAME",
    "pid_file: /var/run/nats/nats.pid",
    "lame_duck_duration: 30s",
    "lame_duck_grace_period: 2s",
    "jetstream {",
    "  store_dir: /data/jetstream",
    "  max_memory_store: 64MB",
    "  max_file_store: 1GB",
    "}",
    "cluster {",
    "  name: harness",
    "  listen: 0.0.0.0:6222",
    "  routes: [",
    routes,
    "  ]",
    "}",
    "",
  ].join("\n");
}

async function monitor<T>(host: string, path: string): Promise<T> {
  const r = await httpGet(`http://${host}:8222${path}`, { timeoutMs: 3_000 });
  if (r.status !== 200) throw new Error(`GET ${host}${path}: ${r.status}`);
  return JSON.parse(r.body) as T;
}

interface Varz {
  server_name: string;
  version: string;
  connect_urls?: string[];
  cluster?: { name?: string; urls?: string[] };
}
interface Routez {
  routes?: { remote_name?: string }[];
}
interface Jsz {
  meta_cluster?: { leader?: string; cluster_size?: number };
}

async function createNats(): Promise<void> {
  const core = ns.kc.makeApiClient(CoreV1Api);
  const apps = ns.kc.makeApiClient(AppsV1Api);
  const namespace = ns.name;
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: "nats-config" }, data: { "nats.conf": natsConfig(namespace) } },
  });
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: "nats" },
      spec: {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: { app: "nats" },
        ports: [
          { name: "client", port: 4222 },
          { name: "cluster", port: 6222 },
          { name: "monitor", port: 8222 },
        ],
      },
    },
  });
  await apps.createNamespacedStatefulSet({
    namespace,
    body: {
      metadata: { name: "nats" },
      spec: {
        serviceName: "nats",
        replicas,
        podManagementPolicy: "Parallel",
        selector: { matchLabels: { app: "nats" } },
        template: {
          metadata: { labels: { app: "nats" } },
          spec: {
            terminationGracePeriodSeconds: 15,
            containers: [
              {
                name: "nats",
                image: "nats:2.15.2-alpine",
                args: ["--config", "/etc/nats-config/nats.conf"],
                env: [{ name: "SERVER_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
                ports: [
                  { name: "client", containerPort: 4222 },
                  { name: "cluster", containerPort: 6222 },
                  { name: "monitor", containerPort: 8222 },
                ],
                readinessProbe: {
                  httpGet: { path: "/healthz?js-enabled-only=true", port: "monitor" },
                  initialDelaySeconds: 1,
                  periodSeconds: 2,
                },
                lifecycle: { preStop: { exec: { command: ["nats-server", "-sl=ldm=/var/run/nats/nats.pid"] } } },
                volumeMounts: [
                  { name: "config", mountPath: "/etc/nats-config" },
                  { name: "pid", mountPath: "/var/run/nats" },
                  { name: "data", mountPath: "/data" },
                ],
              },
              // Reported Running without being run (see test/harness/README.md).
              {
                name: "metrics",
                image: "natsio/prometheus-nats-exporter:0.17.3",
                args: ["-varz", "http://localhost:8222/"],
              },
            ],
            volumes: [
              { name: "config", configMap: { name: "nats-config" } },
              { name: "pid", emptyDir: {} },
            ],
          },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: "data" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      },
    },
  });
}

describe("a NATS cluster from plain StatefulSet objects", () => {
  let pods: V1Pod[] = [];

  it("yields 3 Running, Ready pods with distinct loopback addresses resolvable by DNS name", async () => {
    await createNats();
    pods = await waitForReadyPods(ns.kc, ns.name, "app=nats", replicas, { timeoutMs: 120_000 });
    const ips = pods.map((p) => p.status?.podIP ?? "");
    expect(new Set(ips).size).toBe(replicas);
    for (const pod of pods) {
      expect(pod.status?.podIP).toMatch(/^127\./);
      const statuses = pod.status?.containerStatuses ?? [];
      expect(statuses.map((s) => s.name).sort()).toEqual(["metrics", "nats"]);
      expect(statuses.every((s) => s.ready && s.state?.running !== undefined)).toBe(true);
      const name = pod.metadata?.name ?? "";
      // Node resolves the in-cluster names through the hosts file
      expect((await lookup(fqdn(name), { family: 4 })).address).toBe(pod.status?.podIP);
      expect((await lookup(`${name}.nats.${ns.name}.svc`, { family: 4 })).address).toBe(pod.status?.podIP);
    }
    const svcAddr = (await lookup(`nats.${ns.name}.svc.cluster.local`, { family: 4, all: true }))
      .map((a) => a.address)
      .sort();
    expect(svcAddr).toEqual([...ips].sort());
    for (const pvc of (await ns.kc.makeApiClient(CoreV1Api).listNamespacedPersistentVolumeClaim({ namespace: ns.name }))
      .items) {
      expect(pvc.status?.phase).toBe("Bound");
    }
  }, 180_000);

  it("forms one cluster over routes addressed by DNS name, with a JetStream meta leader", async () => {
    const names = pods.map((p) => p.metadata?.name ?? "").sort();
    await waitFor(
      "full route mesh, every client URL gossiped",
      async () => {
        for (const name of names) {
          const routez = await monitor<Routez>(fqdn(name), "/routez");
          const remotes = new Set((routez.routes ?? []).map((r) => r.remote_name));
          if (!names.filter((n) => n !== name).every((n) => remotes.has(n))) return false;
          // client URLs are gossiped in INFO after the route is up: wait for every member's
          const varz = await monitor<Varz>(fqdn(name), "/varz");
          if ((varz.connect_urls ?? []).length < names.length) return false;
        }
        return true;
      },
      { timeoutMs: 60_000 },
    );
    for (const name of names) {
      const varz = await monitor<Varz>(fqdn(name), "/varz");
      expect(varz.server_name).toBe(name);
      expect(compareVersions(varz.version, "2.15.0")).toBeGreaterThanOrEqual(0);
      expect(varz.cluster?.name).toBe("harness");
      // the configured routes are the in-cluster DNS names, as in a real cluster
      expect(varz.cluster?.urls?.sort()).toEqual(names.map((n) => `${fqdn(n)}:6222`));
      // every server advertises the client URLs of all members: the pod addresses
      expect([...(varz.connect_urls ?? [])].sort()).toEqual(pods.map((p) => `${p.status?.podIP}:4222`).sort());
    }
    const leader = await waitFor(
      "one JetStream meta leader agreed by all servers",
      async () => {
        const leaders = await Promise.all(
          names.map(async (n) => (await monitor<Jsz>(fqdn(n), "/jsz")).meta_cluster?.leader),
        );
        return leaders.every((l) => l !== undefined && l !== "" && l === leaders[0]) ? leaders[0] : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(names).toContain(leader);
    // A leader can be agreed before the last peer is counted in the meta group: wait for it.
    const size = await waitFor(
      "every server counted in the JetStream meta group",
      async () => {
        const counted = (await monitor<Jsz>(fqdn(names[0] ?? ""), "/jsz")).meta_cluster?.cluster_size;
        return counted === replicas ? counted : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(size).toBe(replicas);
  }, 120_000);

  it("brings a deleted pod back with its JetStream data", async () => {
    const servers = pods.map((p) => `nats://${fqdn(p.metadata?.name ?? "")}:4222`);
    nc = await connect({ servers, name: "harness-test" });
    const jsm = await jetstreamManager(nc);
    const stream = "HARNESS";
    // Replicas 1: the only copy lives on one server, so reading it back after
    // that server's pod was deleted proves the claim's directory survived.
    await waitFor(
      "stream creation",
      async () => jsm.streams.add({ name: stream, subjects: ["harness.>"], num_replicas: 1, storage: "file" as never }),
      { timeoutMs: 30_000 },
    );
    // The new stream's interest may not have reached this client's server over the routes yet
    // ("no responders"): publish until it takes the message, deduplicated by its id.
    const js = jetstream(nc);
    await waitFor(
      "the stream takes the message",
      () => js.publish("harness.hello", "persisted across a pod restart", { msgID: "hello-1" }),
      { timeoutMs: 30_000 },
    );
    const host = (await jsm.streams.info(stream)).cluster?.leader ?? "";
    expect(host).toMatch(/^nats-\d$/);
    await nc.close();
    nc = undefined;

    const core = ns.kc.makeApiClient(CoreV1Api);
    const before = await core.readNamespacedPod({ namespace: ns.name, name: host });
    await core.deleteNamespacedPod({ namespace: ns.name, name: host });
    const after = await waitFor(
      `pod ${host} to come back ready`,
      async () => {
        const p = await core.readNamespacedPod({ namespace: ns.name, name: host }).catch(() => undefined);
        return p !== undefined && p.metadata?.uid !== before.metadata?.uid && isPodReady(p) ? p : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(after.status?.podIP).toBe(before.status?.podIP); // the address follows the pod name

    nc = await connect({ servers, name: "harness-test" });
    const jsm2 = await jetstreamManager(nc);
    const msg = await waitFor(
      "the stored message after the restart",
      async () => jsm2.streams.getMessage(stream, { seq: 1 }),
      { timeoutMs: 60_000 },
    );
    expect(msg.string()).toBe("persisted across a pod restart");
    expect((await jsm2.streams.info(stream)).cluster?.leader).toBe(host);

    // The preStop hook `nats-server -sl=ldm=...` was translated into SIGUSR2 (lame duck mode).
    const stateFile = process.env["NATS_OPERATOR_HARNESS_STATE"];
    if (stateFile !== undefined) {
      const state = await readState(stateFile);
      const log = readFileSync(join(state?.workDir ?? "", "logs", "kubelet.log"), "utf8");
      expect(log).toMatch(new RegExp(`pod ${ns.name}/${host}: nats: preStop .* -> SIGUSR2`));
    }
  }, 240_000);

  it("restarts a nats-server that died, counting the restart", async () => {
    const core = ns.kc.makeApiClient(CoreV1Api);
    const name = "nats-0";
    const pod = await core.readNamespacedPod({ namespace: ns.name, name });
    const status = pod.status?.containerStatuses?.find((c) => c.name === "nats");
    const pid = Number(/^harness:\/\/pid\/(\d+)$/.exec(status?.containerID ?? "")?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    const restarted = await waitFor(
      `${name} to restart its nats container`,
      async () => {
        const p = await core.readNamespacedPod({ namespace: ns.name, name });
        const c = p.status?.containerStatuses?.find((x) => x.name === "nats");
        return c !== undefined && c.restartCount === (status?.restartCount ?? 0) + 1 && c.ready && isPodReady(p)
          ? c
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(restarted.lastState?.terminated?.exitCode).toBe(137);
    expect(restarted.containerID).not.toBe(status?.containerID);
    expect((await monitor<Varz>(fqdn(name), "/varz")).server_name).toBe(name);
  }, 90_000);
});
