// The Node object this kubelet stands for, its Ready condition and its lease.
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from "@kubernetes/client-node";
import { NODE_CPU, NODE_MEMORY } from "./fieldref.ts";
import type { Logger } from "./logger.ts";

/** MicroTime as the API server parses it (RFC 3339 with 6 fraction digits). */
export function microTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

export class NodeAgent {
  readonly name: string;
  private readonly core: CoreV1Api;
  private readonly coordination: CoordinationV1Api;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private readyTransition = new Date().toISOString();

  constructor(kc: KubeConfig, name: string, log: Logger) {
    this.name = name;
    this.core = kc.makeApiClient(CoreV1Api);
    this.coordination = kc.makeApiClient(CoordinationV1Api);
    this.log = log;
  }

  async register(): Promise<void> {
    try {
      await this.core.createNode({
        body: {
          apiVersion: "v1",
          kind: "Node",
          metadata: {
            name: this.name,
            labels: {
              "kubernetes.io/hostname": this.name,
              "kubernetes.io/os": "linux",
              "kubernetes.io/arch": process.arch === "x64" ? "amd64" : process.arch,
              "nats-operator.io/harness": "true",
            },
          },
          spec: {},
        },
      });
      this.log(`node ${this.name} registered`);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
    await this.heartbeat();
  }

  private status(): object {
    const now = new Date().toISOString();
    const cond = (type: string, status: string, reason: string, message: string): object => ({
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: this.readyTransition,
    });
    const capacity = {
      cpu: String(NODE_CPU),
      memory: `${NODE_MEMORY / 1024 ** 2}Mi`,
      pods: "110",
      "ephemeral-storage": "100Gi",
    };
    return {
      status: {
        capacity,
        allocatable: capacity,
        conditions: [
          cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "harness kubelet"),
          cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "harness kubelet"),
          cond("PIDPressure", "False", "KubeletHasSufficientPID", "harness kubelet"),
          cond("Ready", "True", "KubeletReady", "harness kubelet is posting ready status"),
        ],
        addresses: [
          { type: "InternalIP", address: "127.0.0.1" },
          { type: "Hostname", address: this.name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          machineID: "harness",
          systemUUID: "harness",
          bootID: "harness",
          kernelVersion: "",
          osImage: "nats-operator test harness",
          containerRuntimeVersion: "harness://0",
          kubeletVersion: "v1.35.4",
          kubeProxyVersion: "",
          operatingSystem: "linux",
          architecture: process.arch === "x64" ? "amd64" : process.arch,
        },
      },
    };
  }

  async heartbeat(): Promise<void> {
    await this.core.patchNodeStatus({ name: this.name, body: this.status() }, mergePatch);
    const spec = { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime: microTime() };
    try {
      await this.coordination.patchNamespacedLease(
        { name: this.name, namespace: "kube-node-lease", body: { spec } },
        mergePatch,
      );
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      await this.coordination.createNamespacedLease({
        namespace: "kube-node-lease",
        body: {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: this.name, namespace: "kube-node-lease" },
          spec: spec as never,
        },
      });
    }
  }

  start(intervalMs = 10_000): void {
    this.timer = setInterval(() => {
      this.heartbeat().catch((err: unknown) => this.log(`node heartbeat failed: ${String(err)}`));
    }, intervalMs);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }
}
