// The local kubelet: a watch-driven loop over Pods and Services.
//   - binds Pods without a node to this node (there is no scheduler);
//   - runs each Pod bound here (see pod.ts) and writes its status;
//   - terminates Pods marked for deletion, then deletes them for good;
//   - keeps the run's /etc/hosts block in line with Pods and Services.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type Informer,
  type ObjectCache,
  type V1Endpoints,
  type V1Pod,
  type V1Service,
  type V1ServicePort,
  type KubernetesObject,
} from "@kubernetes/client-node";
import { NodeAgent } from "./node.ts";
import { PodRuntime } from "./pod.ts";
import { Ipam } from "./ipam.ts";
import { apiObjectSource } from "./objects.ts";
import { hostsEntries } from "./dns.ts";
import { ServiceProxy, type Endpoint } from "./service-proxy.ts";
import { writePodKubeconfig, type PodCredentials } from "./credentials.ts";
import { workloadOf, type WorkloadImages } from "./workloads.ts";
import { writeHostsBlock, removeHostsBlock } from "../hosts-file.ts";
import { errorMessage, sleep } from "../wait.ts";
import type { Logger } from "./logger.ts";

export interface KubeletConfig {
  runId: string;
  workDir: string;
  kubeconfig: string;
  nodeName: string;
  natsServer: string;
  /** Other nats-server versions by version; absent in a config written before there were any. */
  natsServers?: Record<string, string>;
  podSubnet: string;
  pidFile: string;
  hostsFile: string;
  logFile: string;
  /**
   * The Knative profile: Knative's binaries run in network namespaces with
   * addresses <podNetwork>.2-127, the operator's image runs from this
   * checkout, and a service proxy serves every Service's cluster IP.
   */
  knative?: {
    knativeBin: string;
    /** Knative Serving's binaries and Traefik; absent when Serving is not installed. */
    servingBin?: string;
    operatorCheckout: string;
    podNetwork: string;
    /** The `kubernetes` Service's cluster IP and port, proxied to the API server. */
    apiService: { host: string; port: number };
  };
}

const strategicPatch = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

type Watched<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

export class Kubelet {
  private readonly config: KubeletConfig;
  private readonly log: Logger;
  private readonly core: CoreV1Api;
  private readonly node: NodeAgent;
  private readonly ipam: Ipam;
  private readonly netnsIpam: Ipam | undefined;
  private readonly proxy: ServiceProxy | undefined;
  private readonly images: WorkloadImages;
  private readonly kc: KubeConfig;
  private pods: Watched<V1Pod> | undefined;
  private services: Watched<V1Service> | undefined;
  private endpoints: Watched<V1Endpoints> | undefined;
  private readonly runtimes = new Map<string, PodRuntime>();
  private readonly binding = new Set<string>();
  private readonly boundClaims = new Set<string>();
  private stopping = false;
  private wake: (() => void) | undefined;
  private lastHosts = "";
  private lastHostsWrite = 0;
  private loopDone: Promise<void> | undefined;

  constructor(config: KubeletConfig, log: Logger) {
    this.config = config;
    this.log = log;
    this.kc = new KubeConfig();
    this.kc.loadFromFile(config.kubeconfig);
    this.core = this.kc.makeApiClient(CoreV1Api);
    this.node = new NodeAgent(this.kc, config.nodeName, log);
    this.ipam = new Ipam(config.podSubnet, join(config.workDir, "pod-ips.json"));
    const knative = config.knative;
    this.images =
      knative === undefined
        ? {}
        : {
            knativeBin: knative.knativeBin,
            operatorCheckout: knative.operatorCheckout,
            ...(knative.servingBin !== undefined ? { servingBin: knative.servingBin } : {}),
          };
    this.netnsIpam =
      knative === undefined ? undefined : new Ipam(knative.podNetwork, join(config.workDir, "netns-ips.json"), 127);
    this.proxy = knative === undefined ? undefined : new ServiceProxy(log);
  }

  private get apiServer(): string {
    return this.kc.getCurrentCluster()?.server ?? "";
  }

  /** A kubeconfig for the pod's ServiceAccount (a bound token from the TokenRequest API). */
  private async credentials(pod: V1Pod, server: string): Promise<PodCredentials> {
    const dir = join(this.config.workDir, "credentials");
    mkdirSync(dir, { recursive: true });
    const ca = this.kc.getCurrentCluster()?.caData ?? "";
    // Through the `kubernetes` Service the address is a cluster IP, which the serving certificate does not name.
    const tlsServerName = server === this.apiServer ? undefined : "kubernetes.default.svc";
    return writePodKubeconfig(this.core, pod, { dir, server, caData: ca, ...(tlsServerName ? { tlsServerName } : {}) });
  }

  async start(): Promise<void> {
    await this.node.register();
    this.node.start();
    this.pods = this.watch<V1Pod>("/api/v1/pods", () => this.core.listPodForAllNamespaces());
    this.services = this.watch<V1Service>("/api/v1/services", () => this.core.listServiceForAllNamespaces());
    // Services without a selector (Knative Serving's) name their endpoints in an Endpoints object.
    if (this.config.knative !== undefined)
      this.endpoints = this.watch<V1Endpoints>("/api/v1/endpoints", () => this.core.listEndpointsForAllNamespaces());
    await Promise.all([this.pods.start(), this.services.start(), this.endpoints?.start()]);
    this.loopDone = this.loop();
    this.log(`kubelet started: node ${this.config.nodeName}, pod addresses ${this.config.podSubnet}.0/24`);
  }

  private watch<T extends KubernetesObject>(
    path: string,
    list: () => Promise<{ items: T[]; metadata?: object }>,
  ): Watched<T> {
    const informer = makeInformer<T>(this.kc, path, list as never);
    const poke = (): void => this.wake?.();
    informer.on("add", poke);
    informer.on("update", poke);
    informer.on("delete", poke);
    informer.on("error", (err: unknown) => {
      if (this.stopping) return;
      this.log(`watch ${path} failed: ${errorMessage(err)}; restarting`);
      setTimeout(() => {
        if (!this.stopping)
          informer.start().catch((e: unknown) => this.log(`watch ${path} restart failed: ${errorMessage(e)}`));
      }, 1_000);
    });
    return informer;
  }

  /** Reconciles everything at least once a second, and right after any watch event. */
  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.reconcileAll();
      } catch (err) {
        this.log(`reconcile failed: ${errorMessage(err)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      await sleep(50); // coalesce bursts of events
    }
  }

  private async reconcileAll(): Promise<void> {
    const pods = this.pods?.list() ?? [];
    const seen = new Set<string>();
    const liveKeys = new Set(pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
    await Promise.all(
      pods.map(async (pod) => {
        const uid = pod.metadata?.uid ?? "";
        seen.add(uid);
        try {
          await this.reconcilePod(pod, liveKeys);
        } catch (err) {
          this.log(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${errorMessage(err)}`);
        }
      }),
    );
    // Pods removed from the API without our termination (force deletion, namespace purge).
    for (const [uid, rt] of this.runtimes) {
      if (seen.has(uid) || rt.terminating) continue;
      this.log(`pod ${rt.key} vanished from the API; killing its processes`);
      this.runtimes.delete(uid);
      await rt.kill();
      await rt.cleanUp();
    }
    this.updateHosts();
    await this.syncProxy();
  }

  /** The ready addresses of a selector-less Service's port, from its Endpoints object (matched by port name). */
  private endpointsOf(svc: V1Service, servicePort: V1ServicePort): Endpoint[] {
    const ns = svc.metadata?.namespace ?? "default";
    const object = this.endpoints?.get(svc.metadata?.name ?? "", ns);
    return (object?.subsets ?? []).flatMap((subset) => {
      const port = (subset.ports ?? []).find((p) => (p.name ?? "") === (servicePort.name ?? ""));
      if (port === undefined) return [];
      return (subset.addresses ?? []).map((a) => ({ ip: a.ip, port: port.port }));
    });
  }

  /**
   * Each Service port's endpoints: the selected pods that are ready (all with
   * publishNotReadyAddresses), or for a Service without a selector its Endpoints object.
   */
  private async syncProxy(): Promise<void> {
    const knative = this.config.knative;
    if (this.proxy === undefined || knative === undefined) return;
    const api = new URL(this.apiServer);
    const fixed = new Map<string, Endpoint[]>([
      [`${knative.apiService.host}:${knative.apiService.port}`, [{ ip: api.hostname, port: Number(api.port) }]],
    ]);
    const runtimes = [...this.runtimes.values()].filter((rt) => !rt.terminating && !rt.finished);
    await this.proxy.sync(
      this.services?.list() ?? [],
      (svc, servicePort) => {
        const selector = svc.spec?.selector ?? {};
        if (Object.keys(selector).length === 0) return this.endpointsOf(svc, servicePort);
        const targetPort = servicePort.targetPort ?? servicePort.port;
        const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
        return runtimes.flatMap((rt) => {
          const labels = rt.pod.metadata?.labels ?? {};
          if (rt.namespace !== (svc.metadata?.namespace ?? "default")) return [];
          if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return [];
          if (!rt.ready && !publishNotReady) return [];
          const port =
            typeof targetPort === "number"
              ? targetPort
              : (rt.pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((p) => p.name === targetPort)
                  ?.containerPort;
          return port === undefined ? [] : [{ ip: rt.ip, port }];
        });
      },
      fixed,
    );
  }

  private async reconcilePod(pod: V1Pod, liveKeys: Set<string>): Promise<void> {
    const ns = pod.metadata?.namespace ?? "default";
    const name = pod.metadata?.name ?? "";
    const uid = pod.metadata?.uid ?? "";
    if (!pod.spec?.nodeName) {
      if (pod.metadata?.deletionTimestamp === undefined && !this.binding.has(uid)) await this.bind(ns, name, uid);
      return;
    }
    if (pod.spec.nodeName !== this.config.nodeName) return;
    let rt = this.runtimes.get(uid);
    if (pod.metadata?.deletionTimestamp !== undefined) {
      if (rt === undefined) {
        await this.deleteNow(ns, name, uid);
        return;
      }
      if (!rt.terminating) void this.terminate(rt, pod);
      return;
    }
    if (rt === undefined) {
      if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
      const knative = this.config.knative;
      // With Knative every pod that runs something gets its own network namespace: Knative's
      // programs bind fixed ports on every address, and a function beside a queue-proxy must
      // reach the nats-server pods, which a namespace's own loopback device would hide.
      const isolated =
        knative !== undefined &&
        (pod.spec.containers ?? []).some((c) => workloadOf(c, this.images).kind !== "simulated");
      const ipam = isolated && this.netnsIpam !== undefined ? this.netnsIpam : this.ipam;
      const ip = ipam.allocate(`${ns}/${name}`, liveKeys);
      rt = new PodRuntime(pod, ip, {
        natsServer: this.config.natsServer,
        natsServers: this.config.natsServers ?? {},
        images: this.images,
        ...(isolated && knative !== undefined
          ? { netns: { runId: this.config.runId, gateway: `${knative.podNetwork}.1`, apiServer: knative.apiService } }
          : {}),
        credentials: (p, server) => this.credentials(p, server),
        apiServer: this.apiServer,
        workDir: this.config.workDir,
        objects: apiObjectSource(this.core),
        log: this.log,
        onProcessChange: () => this.writePids(),
      });
      this.runtimes.set(uid, rt);
      this.log(`pod ${rt.key}: admitted with address ${ip}`);
    }
    await rt.sync(pod);
    await this.bindClaims(pod);
    await this.writeStatus(rt);
  }

  private async bind(namespace: string, name: string, uid: string): Promise<void> {
    this.binding.add(uid);
    try {
      await this.core.createNamespacedPodBinding({
        name,
        namespace,
        body: {
          apiVersion: "v1",
          kind: "Binding",
          metadata: { name, namespace, uid },
          target: { apiVersion: "v1", kind: "Node", name: this.config.nodeName },
        },
      });
      this.log(`pod ${namespace}/${name}: bound to ${this.config.nodeName}`);
    } catch (err) {
      this.binding.delete(uid);
      throw err;
    }
  }

  /** PersistentVolumeClaims of a running Pod are reported Bound (their storage is a directory). */
  private async bindClaims(pod: V1Pod): Promise<void> {
    const ns = pod.metadata?.namespace ?? "default";
    for (const v of pod.spec?.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim === undefined) continue;
      try {
        const pvc = await this.core.readNamespacedPersistentVolumeClaim({ namespace: ns, name: claim });
        // Keyed by uid: a claim deleted and made again under its name is bound afresh.
        const key = `${ns}/${claim}/${pvc.metadata?.uid ?? ""}`;
        if (this.boundClaims.has(key)) continue;
        if (pvc.status?.phase !== "Bound") {
          const storage = pvc.spec?.resources?.requests?.["storage"] ?? "1Gi";
          await this.core.patchNamespacedPersistentVolumeClaimStatus(
            {
              namespace: ns,
              name: claim,
              body: {
                status: {
                  phase: "Bound",
                  accessModes: pvc.spec?.accessModes ?? ["ReadWriteOnce"],
                  capacity: { storage },
                },
              },
            },
            mergePatch,
          );
        }
        this.boundClaims.add(key);
      } catch (err) {
        this.log(`pvc ${ns}/${claim}: ${errorMessage(err)}`);
      }
    }
  }

  private async writeStatus(rt: PodRuntime): Promise<void> {
    if (rt.terminating) return;
    const status = rt.status();
    const json = JSON.stringify(status);
    if (json === rt.lastStatusJson) return;
    await this.core.patchNamespacedPodStatus(
      { namespace: rt.namespace, name: rt.name, body: { status } },
      strategicPatch,
    );
    rt.lastStatusJson = json;
  }

  private async terminate(rt: PodRuntime, pod: V1Pod): Promise<void> {
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    try {
      await rt.terminate(grace);
      this.updateHosts();
      await rt.cleanUp();
      await this.deleteNow(rt.namespace, rt.name, rt.uid);
    } catch (err) {
      this.log(`pod ${rt.key}: termination failed: ${errorMessage(err)}`);
    } finally {
      this.runtimes.delete(rt.uid);
      this.wake?.();
    }
  }

  private async deleteNow(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({
        namespace,
        name,
        gracePeriodSeconds: 0,
        body: { gracePeriodSeconds: 0, preconditions: { uid } },
      });
      this.log(`pod ${namespace}/${name}: deleted`);
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 404 && code !== 409) throw err;
    }
  }

  private updateHosts(): void {
    const pods = [...this.runtimes.values()]
      .filter((rt) => !rt.finished && !(rt.terminating && rt.pids().length === 0))
      .map((rt) => ({ pod: rt.pod, ip: rt.ip, ready: rt.ready && !rt.terminating }));
    const entries = hostsEntries(pods, this.services?.list() ?? [], this.proxy !== undefined);
    const json = JSON.stringify([...entries]);
    // Unchanged entries are still re-asserted every 5 s, which repairs the block
    // if someone else rewrote the file (writeHostsBlock only writes on a difference).
    if (json === this.lastHosts && Date.now() - this.lastHostsWrite < 5_000) return;
    try {
      writeHostsBlock(this.config.runId, this.config.workDir, entries, this.config.hostsFile);
      this.lastHosts = json;
      this.lastHostsWrite = Date.now();
    } catch (err) {
      this.log(`hosts file update failed: ${errorMessage(err)}`);
    }
  }

  private writePids(): void {
    const pids = [...this.runtimes.values()].flatMap((rt) => rt.pids());
    try {
      writeFileSync(this.config.pidFile, JSON.stringify(pids));
    } catch {
      // work dir gone: shutting down
    }
  }

  /** Stops every Pod (SIGTERM, then SIGKILL after 10 s), the watches and the hosts block. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loopDone?.catch(() => undefined);
    this.node.stop();
    await Promise.all([this.pods?.stop(), this.services?.stop()]).catch(() => undefined);
    await this.proxy?.stop();
    await Promise.all([...this.runtimes.values()].map((rt) => (rt.terminating ? rt.kill() : rt.terminate(10))));
    this.writePids();
    try {
      removeHostsBlock(this.config.runId, this.config.workDir, this.config.hostsFile);
    } catch (err) {
      this.log(`hosts block removal failed: ${errorMessage(err)}`);
    }
    this.log("kubelet stopped");
  }
}
