// One container of a Pod: a real process (see workloads.ts), or simulated
// (reported Running and Ready without being run).
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import type { V1Container, V1ContainerStatus, V1Probe } from "@kubernetes/client-node";
import { runProbe } from "./probe.ts";
import type { Workload } from "./workloads.ts";

export interface Termination {
  exitCode: number;
  signal?: string;
  reason: string;
  startedAt: string;
  finishedAt: string;
}

/** Probe timing is compressed so tests do not wait for production delays. */
export const PROBE_MAX_PERIOD_MS = 2_000;
export const PROBE_MAX_INITIAL_DELAY_MS = 2_000;
const BACKOFF_MAX_MS = 30_000;

class ProbeState {
  readonly probe: V1Probe;
  nextAt = 0;
  successes = 0;
  failures = 0;
  running = false;
  constructor(probe: V1Probe, startedAtMs: number) {
    this.probe = probe;
    this.nextAt = startedAtMs + Math.min((probe.initialDelaySeconds ?? 0) * 1000, PROBE_MAX_INITIAL_DELAY_MS);
  }
  get periodMs(): number {
    return Math.min((this.probe.periodSeconds ?? 10) * 1000, PROBE_MAX_PERIOD_MS);
  }
}

export class ContainerRuntime {
  readonly spec: V1Container;
  readonly workload: Workload;
  readonly logFile: string;
  /** Why a real container cannot run (then it stays Waiting). */
  blocked: { reason: string; message: string } | undefined;
  proc: ChildProcess | undefined;
  state: "waiting" | "running" | "terminated" = "waiting";
  waitingReason = "ContainerCreating";
  waitingMessage: string | undefined;
  startedAt: string | undefined;
  startedAtMs = 0;
  terminated: Termination | undefined;
  lastTermination: Termination | undefined;
  restartCount = 0;
  nextStartAt = 0;
  backoffMs = 0;
  started = false;
  ready = false;
  /** Host path of the config file given with --config, for reloads. */
  configFile: string | undefined;
  private readiness: ProbeState | undefined;
  private startup: ProbeState | undefined;
  private exitWaiters: (() => void)[] = [];

  constructor(spec: V1Container, workload: Workload, logFile: string) {
    this.spec = spec;
    this.workload = workload;
    this.logFile = logFile;
  }

  get real(): boolean {
    return this.workload.kind !== "simulated";
  }

  /** What the process's command line contains, so teardown never signals a recycled PID. */
  get expect(): string {
    const w = this.workload;
    return w.kind === "binary" ? w.path : w.kind === "node" ? w.script : "nats-server";
  }

  get pid(): number | undefined {
    return this.state === "running" ? this.proc?.pid : undefined;
  }

  /** Simulated containers run from the moment the Pod starts. */
  markSimulatedRunning(): void {
    this.state = "running";
    this.startedAt = new Date().toISOString();
    this.startedAtMs = Date.now();
    this.started = true;
    this.ready = true;
  }

  /** Starts the process; `onExit` runs when it ends. */
  launch(command: string, argv: string[], env: Record<string, string>, cwd: string, onExit: () => void): void {
    const fd = openSync(this.logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(command, argv, { cwd, env, detached: true, stdio: ["ignore", fd, fd] });
    } finally {
      closeSync(fd);
    }
    this.proc = child;
    this.state = "running";
    this.startedAt = new Date().toISOString();
    this.startedAtMs = Date.now();
    this.terminated = undefined;
    this.started = this.spec.startupProbe === undefined;
    this.ready = false;
    this.startup =
      this.spec.startupProbe === undefined ? undefined : new ProbeState(this.spec.startupProbe, this.startedAtMs);
    this.readiness =
      this.spec.readinessProbe === undefined ? undefined : new ProbeState(this.spec.readinessProbe, this.startedAtMs);
    const startedAt = this.startedAt;
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null, err?: Error): void => {
      if (done) return;
      done = true;
      this.state = "terminated";
      this.ready = false;
      this.proc = undefined;
      const exitCode = code ?? (signal !== null ? 128 + signalNumber(signal) : 1);
      this.terminated = {
        exitCode,
        ...(signal !== null ? { signal } : {}),
        reason: err !== undefined ? "StartError" : exitCode === 0 ? "Completed" : "Error",
        startedAt,
        finishedAt: new Date().toISOString(),
      };
      if (err !== undefined) this.waitingMessage = err.message;
      for (const w of this.exitWaiters.splice(0)) w();
      onExit();
    };
    child.on("exit", (code, signal) => finish(code, signal));
    child.on("error", (err) => finish(null, null, err));
  }

  /** Waits until the process has exited, at most `ms`; true if it did. */
  waitExit(ms: number): Promise<boolean> {
    if (this.state !== "running" || this.proc === undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, ms));
      this.exitWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  signal(sig: NodeJS.Signals): void {
    try {
      this.proc?.kill(sig);
    } catch {
      // already gone
    }
  }

  /** After an exit that is to be restarted: schedule the restart with exponential backoff. */
  scheduleRestart(): void {
    const ranMs = this.terminated ? Date.parse(this.terminated.finishedAt) - Date.parse(this.terminated.startedAt) : 0;
    this.backoffMs = ranMs > 60_000 ? 1_000 : Math.min(Math.max(this.backoffMs * 2, 1_000), BACKOFF_MAX_MS);
    this.nextStartAt = Date.now() + this.backoffMs;
    this.lastTermination = this.terminated;
    this.state = "waiting";
    this.waitingReason = "CrashLoopBackOff";
    this.waitingMessage = `back-off ${this.backoffMs / 1000}s restarting failed container=${this.spec.name}`;
  }

  /** Runs due startup/readiness probes against `ip`. */
  async probe(ip: string): Promise<void> {
    if (!this.real || this.state !== "running") return;
    const now = Date.now();
    const due = (p: ProbeState | undefined): p is ProbeState => p !== undefined && !p.running && now >= p.nextAt;
    if (!this.started) {
      const p = this.startup;
      if (!due(p)) return;
      p.running = true;
      const ok = await runProbe(p.probe, ip, this.spec).finally(() => (p.running = false));
      p.nextAt = Date.now() + p.periodMs;
      if (ok) this.started = true;
      return;
    }
    const p = this.readiness;
    if (p === undefined) {
      this.ready = true;
      return;
    }
    if (!due(p)) return;
    p.running = true;
    const ok = await runProbe(p.probe, ip, this.spec).finally(() => (p.running = false));
    p.nextAt = Date.now() + p.periodMs;
    if (this.state !== "running") return;
    if (ok) {
      p.failures = 0;
      p.successes++;
      if (p.successes >= (p.probe.successThreshold ?? 1)) this.ready = true;
    } else {
      p.successes = 0;
      p.failures++;
      if (!this.ready || p.failures >= (p.probe.failureThreshold ?? 3)) this.ready = false;
    }
  }

  status(): V1ContainerStatus {
    const image = this.spec.image ?? "";
    const term = (t: Termination): object => ({
      terminated: {
        exitCode: t.exitCode,
        reason: t.reason,
        startedAt: t.startedAt,
        finishedAt: t.finishedAt,
        ...(t.signal !== undefined ? { message: `killed by ${t.signal}` } : {}),
        containerID: `harness://${this.spec.name}`,
      },
    });
    let state: object;
    if (this.state === "running") state = { running: { startedAt: this.startedAt } };
    else if (this.state === "terminated" && this.terminated !== undefined) state = term(this.terminated);
    else
      state = {
        waiting: { reason: this.waitingReason, ...(this.waitingMessage ? { message: this.waitingMessage } : {}) },
      };
    const status = {
      name: this.spec.name,
      image,
      imageID: this.real ? `harness://${this.workload.kind}/${image}` : `harness://simulated/${image}`,
      ready: this.state === "running" && this.ready,
      started: this.state === "running" && this.started,
      restartCount: this.restartCount,
      state,
      lastState: this.lastTermination !== undefined ? term(this.lastTermination) : {},
      ...(this.state === "running" && this.real && this.proc?.pid !== undefined
        ? { containerID: `harness://pid/${this.proc.pid}` }
        : {}),
      ...(!this.real ? { containerID: `harness://simulated/${this.spec.name}` } : {}),
    };
    return status as unknown as V1ContainerStatus;
  }
}

function signalNumber(sig: NodeJS.Signals): number {
  const table: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGUSR1: 10,
    SIGUSR2: 12,
    SIGTERM: 15,
  };
  return table[sig] ?? 1;
}
