// One Pod on the harness node: its address, directories, volumes, containers,
// status, and its termination.
import { mkdir, rm, symlink, lstat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { V1Pod, V1PodCondition } from "@kubernetes/client-node";
import { ContainerRuntime } from "./containers.ts";
import { resolveEnv, expandVars } from "./env.ts";
import { createPodNetwork, deletePodNetwork, inNetns, inNetnsWithServiceAccount, netnsNames } from "./netns.ts";
import type { PodCredentials } from "./credentials.ts";
import { workloadOf, type WorkloadImages } from "./workloads.ts";
import {
  natsServerArgs,
  natsSignalCommand,
  prepareNatsArgs,
  renderConfig,
  hostPath,
  natsBinaryFor,
  UnsupportedCommandError,
} from "./nats.ts";
import { materialiseVolumes, renderFiles, hashFiles, writeFiles, type MaterialisedVolume } from "./volumes.ts";
import type { ObjectSource } from "./objects.ts";
import { httpGet } from "../http-check.ts";
import { errorMessage, sleep } from "../wait.ts";
import type { Logger } from "./logger.ts";

export const HOST_IP = "127.0.0.1";

export interface PodEnvironment {
  natsServer: string;
  /** Other nats-server versions by version, chosen by the image tag (natsBinaryFor). */
  natsServers: Record<string, string>;
  images: WorkloadImages;
  /** Set for a pod that gets its own network namespace (see netns.ts). */
  netns?: { runId: string; gateway: string; apiServer: { host: string; port: number } };
  /** A kubeconfig file with a token of the pod's ServiceAccount, for the given API server address. */
  credentials: (pod: V1Pod, server: string) => Promise<PodCredentials>;
  /** The API server's address as seen from the host. */
  apiServer: string;
  workDir: string;
  objects: ObjectSource;
  log: Logger;
  /** Called when a process starts or stops (to record PIDs). */
  onProcessChange: () => void;
}

export class PodRuntime {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly ip: string;
  readonly dir: string;
  pod: V1Pod;
  readonly containers: ContainerRuntime[];
  volumes: Map<string, MaterialisedVolume> | undefined;
  volumeError: string | undefined;
  readonly startTime = new Date().toISOString();
  terminating = false;
  finished = false;
  lastStatusJson = "";
  private readonly env: PodEnvironment;
  private conditionTimes = new Map<string, { status: string; time: string }>();
  private nextVolumeSync = 0;

  constructor(pod: V1Pod, ip: string, env: PodEnvironment) {
    this.pod = pod;
    this.uid = pod.metadata?.uid ?? "";
    this.namespace = pod.metadata?.namespace ?? "default";
    this.name = pod.metadata?.name ?? "";
    this.ip = ip;
    this.env = env;
    this.dir = join(env.workDir, "pods", this.namespace, `${this.name}-${this.uid.slice(0, 8)}`);
    this.containers = (pod.spec?.containers ?? []).map(
      (c) => new ContainerRuntime(c, workloadOf(c, env.images), join(this.dir, "logs", `${c.name}.log`)),
    );
  }

  get key(): string {
    return `${this.namespace}/${this.name}`;
  }

  private log(msg: string): void {
    this.env.log(`pod ${this.key}: ${msg}`);
  }

  rootOf(c: ContainerRuntime): string {
    return join(this.dir, "containers", c.spec.name, "root");
  }

  get ready(): boolean {
    return this.containers.every((c) => c.state === "running" && c.ready) && this.readinessGatesPass();
  }

  private readinessGatesPass(): boolean {
    const conds = this.pod.status?.conditions ?? [];
    return (this.pod.spec?.readinessGates ?? []).every((g) =>
      conds.some((c) => c.type === g.conditionType && c.status === "True"),
    );
  }

  /** Volumes and the per-container root filesystems; retried until it succeeds. */
  private async setUp(): Promise<boolean> {
    if (this.volumes !== undefined) return true;
    try {
      await mkdir(join(this.dir, "logs"), { recursive: true });
      const netns = this.env.netns;
      if (netns !== undefined) await createPodNetwork(netns.runId, this.ip, netns.gateway);
      const volumes = await materialiseVolumes(this.pod, {
        podDir: this.dir,
        pvcRoot: join(this.env.workDir, "pvc"),
        addr: { podIP: this.ip, hostIP: HOST_IP },
        objects: this.env.objects,
      });
      for (const c of this.containers) {
        if (!c.real) continue;
        const root = this.rootOf(c);
        await mkdir(root, { recursive: true });
        const mounts = [...(c.spec.volumeMounts ?? [])].sort((a, b) => a.mountPath.length - b.mountPath.length);
        for (const m of mounts) {
          const v = volumes.get(m.name);
          if (v === undefined) throw new Error(`volume ${m.name} not found`);
          const source = m.subPath ? join(v.hostPath, expandVars(m.subPath, {})) : v.hostPath;
          await mkdir(source, { recursive: true }).catch(() => undefined);
          const target = hostPath(root, m.mountPath);
          await mkdir(dirname(target), { recursive: true });
          const exists = await lstat(target).then(
            () => true,
            () => false,
          );
          if (!exists) await symlink(source, target);
        }
      }
      this.volumes = volumes;
      this.volumeError = undefined;
      this.nextVolumeSync = Date.now() + 5_000;
      return true;
    } catch (err) {
      this.volumeError = errorMessage(err);
      for (const c of this.containers) {
        c.waitingReason = "ContainerCreating";
        c.waitingMessage = this.volumeError;
      }
      this.log(`setup failed: ${this.volumeError}`);
      return false;
    }
  }

  private async startContainer(c: ContainerRuntime): Promise<void> {
    try {
      const env = await resolveEnv(this.pod, c.spec, { podIP: this.ip, hostIP: HOST_IP }, this.env.objects);
      if (c.workload.kind === "binary" || c.workload.kind === "node") {
        await this.startProgram(c, env);
        return;
      }
      const args = natsServerArgs(c.spec).map((a) => expandVars(a, env));
      const root = this.rootOf(c);
      const prepared = await prepareNatsArgs(args, root, this.ip);
      c.configFile = prepared.configFile;
      const processEnv = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, ...env };
      const binary = natsBinaryFor(c.spec.image, this.env.natsServer, this.env.natsServers);
      const { command, args: argv } =
        this.env.netns === undefined
          ? { command: binary, args: prepared.argv }
          : inNetns(this.netnsName(), binary, prepared.argv);
      this.log(`starting ${c.spec.name}: ${command} ${argv.join(" ")}`);
      c.launch(command, argv, processEnv, root, () => this.onExit(c));
      this.env.onProcessChange();
    } catch (err) {
      if (err instanceof UnsupportedCommandError)
        c.blocked = { reason: "HarnessUnsupportedCommand", message: err.message };
      c.state = "waiting";
      c.waitingReason = c.blocked?.reason ?? "CreateContainerError";
      c.waitingMessage = errorMessage(err);
      c.nextStartAt = Date.now() + 2_000;
      this.log(`cannot start ${c.spec.name}: ${errorMessage(err)}`);
    }
  }

  /**
   * A Knative binary (in the pod's network namespace) or the operator's own
   * entry point (on the pod's loopback address, told by HOST, or in the pod's
   * network namespace when a Knative sidecar runs beside it). Either reaches
   * the API server as the pod's ServiceAccount: through the `kubernetes`
   * Service from a namespace, directly from the host.
   */
  private async startProgram(c: ContainerRuntime, env: Record<string, string>): Promise<void> {
    const root = this.rootOf(c);
    await mkdir(root, { recursive: true });
    const netns = this.env.netns;
    const server = netns === undefined ? this.env.apiServer : `https://${netns.apiServer.host}:${netns.apiServer.port}`;
    const { kubeconfig, serviceAccountDir } = await this.env.credentials(this.pod, server);
    const processEnv: Record<string, string> = {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: root,
      KUBECONFIG: kubeconfig,
      ...(netns === undefined
        ? {}
        : { KUBERNETES_SERVICE_HOST: netns.apiServer.host, KUBERNETES_SERVICE_PORT: String(netns.apiServer.port) }),
      ...env,
    };
    const expand = (list: string[]): string[] => list.map((a) => expandVars(a, env));
    let command: string;
    let argv: string[];
    if (c.workload.kind === "node") {
      const nodeArgv = nodeProgram(c.spec.command ?? [], c.spec.args ?? [], c.workload.script).map((a) =>
        expandVars(a, env),
      );
      if (netns === undefined) {
        processEnv["HOST"] = this.ip;
        command = process.execPath;
        argv = nodeArgv;
      } else {
        // In the pod's own namespace (beside a queue-proxy the function is reached on
        // 127.0.0.1:$PORT), with the service account's files where a container has them.
        ({ command, args: argv } = inNetnsWithServiceAccount(
          this.netnsName(),
          serviceAccountDir,
          process.execPath,
          nodeArgv,
        ));
      }
    } else if (c.workload.kind === "binary" && netns !== undefined) {
      ({ command, args: argv } = inNetns(
        this.netnsName(),
        c.workload.path,
        expand([...(c.spec.command ?? []).slice(1), ...(c.spec.args ?? [])]),
      ));
    } else {
      throw new Error(`container ${c.spec.name}: a ${c.workload.kind} workload needs a network namespace`);
    }
    this.log(`starting ${c.spec.name}: ${command} ${argv.join(" ")}`);
    c.launch(command, argv, processEnv, root, () => this.onExit(c));
    this.env.onProcessChange();
  }

  private netnsName(): string {
    const netns = this.env.netns;
    if (netns === undefined) throw new Error("not a network-namespace pod");
    return netnsNames(netns.runId, this.ip).netns;
  }

  private onExit(c: ContainerRuntime): void {
    this.env.onProcessChange();
    const t = c.terminated;
    this.log(`${c.spec.name} exited code=${t?.exitCode} signal=${t?.signal ?? "-"}`);
    if (this.terminating) return;
    const policy = this.pod.spec?.restartPolicy ?? "Always";
    if (policy === "Always" || (policy === "OnFailure" && (t?.exitCode ?? 1) !== 0)) c.scheduleRestart();
  }

  /** Starts, restarts and probes containers; keeps file volumes up to date. */
  async sync(pod: V1Pod): Promise<void> {
    this.pod = pod;
    if (this.terminating) return;
    if (!(await this.setUp())) return;
    for (const c of this.containers) {
      if (!c.real) {
        if (c.state === "waiting") c.markSimulatedRunning();
        continue;
      }
      if (c.blocked !== undefined) continue;
      if (c.state === "waiting" && Date.now() >= c.nextStartAt) {
        if (c.waitingReason === "CrashLoopBackOff") c.restartCount++;
        await this.startContainer(c);
      }
    }
    await Promise.all(this.containers.map((c) => c.probe(this.ip)));
    if (Date.now() >= this.nextVolumeSync) await this.syncFileVolumes();
  }

  /**
   * Like the kubelet's periodic volume sync: ConfigMap/Secret changes reach the
   * files, and the rewritten config copy nats-server reads. If the Pod has a
   * config-reloader sidecar (simulated), we also do its job: SIGHUP to nats-server.
   */
  private async syncFileVolumes(): Promise<void> {
    this.nextVolumeSync = Date.now() + 3_000;
    if (this.volumes === undefined) return;
    let changed = false;
    for (const volume of this.pod.spec?.volumes ?? []) {
      const current = this.volumes.get(volume.name);
      if (current?.kind !== "files") continue;
      try {
        const files = await renderFiles(this.pod, volume, { podIP: this.ip, hostIP: HOST_IP }, this.env.objects);
        if (files === undefined) continue;
        const hash = hashFiles(files);
        if (hash === current.hash) continue;
        await writeFiles(current.hostPath, files);
        current.hash = hash;
        changed = true;
        this.log(`volume ${volume.name} updated`);
      } catch (err) {
        this.log(`volume ${volume.name} refresh failed: ${errorMessage(err)}`);
      }
    }
    if (!changed) return;
    // In a real pod nats-server reads the mounted file itself, so a change reaches what a reload
    // (SIGHUP, or $SYS.REQ.SERVER.<id>.RELOAD) reads: here that is the rewritten copy, kept in step.
    const hasReloader = (this.pod.spec?.containers ?? []).some((c) => /reloader/.test(`${c.name} ${c.image ?? ""}`));
    for (const c of this.containers) {
      if (!c.real || c.state !== "running" || c.configFile === undefined) continue;
      try {
        await renderConfig(c.configFile, this.rootOf(c), this.ip);
        if (!hasReloader) continue;
        c.signal("SIGHUP");
        this.log(`${c.spec.name}: config reloaded (SIGHUP)`);
      } catch (err) {
        this.log(`${c.spec.name}: reload failed: ${errorMessage(err)}`);
      }
    }
  }

  private condition(type: string, ok: boolean): V1PodCondition {
    const status = ok ? "True" : "False";
    let entry = this.conditionTimes.get(type);
    if (entry === undefined || entry.status !== status) {
      entry = { status, time: new Date().toISOString() };
      this.conditionTimes.set(type, entry);
    }
    return { type, status, lastTransitionTime: entry.time as unknown as Date, lastProbeTime: null as unknown as Date };
  }

  /** The status block to write for the Pod. */
  status(): object {
    const policy = this.pod.spec?.restartPolicy ?? "Always";
    const statuses = this.containers.map((c) => c.status());
    const everStarted = this.containers.every(
      (c) => c.state !== "waiting" || c.restartCount > 0 || c.lastTermination !== undefined,
    );
    const allDone = this.containers.every((c) => c.state === "terminated");
    let phase = "Running";
    if (!everStarted) phase = "Pending";
    else if (allDone && policy !== "Always")
      phase = this.containers.every((c) => c.terminated?.exitCode === 0) ? "Succeeded" : "Failed";
    const containersReady = this.containers.every((c) => c.state === "running" && c.ready);
    const init = (this.pod.spec?.initContainers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? "",
      imageID: `harness://simulated/${c.image ?? ""}`,
      containerID: `harness://simulated/${c.name}`,
      ready: true,
      restartCount: 0,
      started: false,
      state: {
        terminated: { exitCode: 0, reason: "Completed", startedAt: this.startTime, finishedAt: this.startTime },
      },
    }));
    return {
      phase,
      hostIP: HOST_IP,
      hostIPs: [{ ip: HOST_IP }],
      podIP: this.ip,
      podIPs: [{ ip: this.ip }],
      startTime: this.startTime,
      conditions: [
        this.condition("PodReadyToStartContainers", this.volumes !== undefined),
        this.condition("Initialized", true),
        this.condition("ContainersReady", containersReady),
        this.condition("Ready", containersReady && this.readinessGatesPass()),
        this.condition("PodScheduled", true),
      ],
      containerStatuses: statuses,
      ...(init.length > 0 ? { initContainerStatuses: init } : {}),
    };
  }

  /**
   * Graceful termination: preStop hooks (a `nats-server --signal ...` exec hook
   * becomes that signal sent to our process; an httpGet hook is performed; a
   * sleep hook is waited; other exec hooks are skipped), then SIGTERM, then
   * SIGKILL when the grace period is over.
   */
  async terminate(graceSeconds: number): Promise<void> {
    this.terminating = true;
    const deadline = Date.now() + graceSeconds * 1000;
    this.log(`terminating (grace ${graceSeconds}s)`);
    await Promise.all(
      this.containers.map(async (c) => {
        if (!c.real || c.state !== "running") return;
        const hook = c.spec.lifecycle?.preStop;
        if (hook?.exec !== undefined) {
          const sig = natsSignalCommand(hook.exec.command);
          if (sig !== undefined) {
            this.log(`${c.spec.name}: preStop ${JSON.stringify(hook.exec.command)} -> ${sig}`);
            c.signal(sig);
          } else {
            this.log(`${c.spec.name}: preStop exec ${JSON.stringify(hook.exec.command)} skipped (not runnable here)`);
          }
        } else if (hook?.httpGet !== undefined) {
          const port = hook.httpGet.port;
          const url = `${(hook.httpGet.scheme ?? "HTTP").toLowerCase()}://${hook.httpGet.host ?? this.ip}:${port}${hook.httpGet.path ?? "/"}`;
          await httpGet(url, { timeoutMs: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
        } else if (hook?.sleep !== undefined) {
          await sleep(Math.min(hook.sleep.seconds * 1000, Math.max(0, deadline - Date.now())));
        }
        c.signal("SIGTERM");
        if (!(await c.waitExit(deadline - Date.now()))) {
          this.log(`${c.spec.name}: grace period over, SIGKILL`);
          c.signal("SIGKILL");
          await c.waitExit(5_000);
        }
      }),
    );
    for (const c of this.containers) {
      if (c.state !== "terminated") {
        c.state = "terminated";
        c.terminated = {
          exitCode: 0,
          reason: "Completed",
          startedAt: c.startedAt ?? this.startTime,
          finishedAt: new Date().toISOString(),
        };
      }
    }
    this.finished = true;
    this.env.onProcessChange();
  }

  /** Immediate stop (Pod force-deleted, or the kubelet shutting down fast). */
  async kill(): Promise<void> {
    this.terminating = true;
    for (const c of this.containers) c.signal("SIGKILL");
    await Promise.all(this.containers.map((c) => c.waitExit(5_000)));
    this.finished = true;
    this.env.onProcessChange();
  }

  /** Removes the pod directory (persistent volume claim directories stay) and its network namespace. */
  async cleanUp(): Promise<void> {
    if (this.env.netns !== undefined) await deletePodNetwork(this.env.netns.runId, this.ip);
    await rm(this.dir, { recursive: true, force: true });
  }

  pids(): { pid: number; expect: string }[] {
    return this.containers.flatMap((c) => (c.pid === undefined ? [] : [{ pid: c.pid, expect: c.expect }]));
  }
}

/**
 * node's argv for the operator's image: its entry point with the container's
 * args (`serve` by default), or, for a container whose command runs node
 * itself on something else (`node -e <script>`, as `helm test` does), that
 * command's own arguments.
 */
export function nodeProgram(command: string[], args: string[], entry: string): string[] {
  const [program, first] = command;
  const runsNode = program !== undefined && /(^|\/)node$/.test(program);
  if (runsNode && first !== undefined && !/nats-operator\.(mjs|ts)$/.test(first)) return [...command.slice(1), ...args];
  const rest = [...command.slice(runsNode ? 2 : 1), ...args];
  return [entry, ...(rest.length > 0 ? rest : ["serve"])];
}
