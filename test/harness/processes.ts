// Starting detached child processes and stopping them by PID.
import { spawn } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { sleep } from "./wait.ts";

export interface SpawnOptions {
  /** stdout and stderr are appended to this file. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Starts `command` in its own process group, detached from the caller, with
 * output going to a log file. The caller may exit; the process keeps running
 * until stopped by PID.
 */
export function spawnDetached(command: string, args: string[], options: SpawnOptions): number {
  const fd = openSync(options.logFile, "a");
  try {
    const child = spawn(command, args, {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    child.on("error", () => {}); // reported through the log and liveness checks
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return true; // no procfs: trust kill(0)
  }
}

/** The command line of a process, or undefined if it is gone. */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((s) => s !== "");
  } catch {
    return undefined;
  }
}

/** Waits up to `timeoutMs` for the process to exit; true if it did. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * SIGTERM, then SIGKILL when the process is still there after `timeoutMs`.
 * `expect`, when given, must occur in the process's command line; it guards
 * against signalling a recycled PID.
 */
export async function stopPid(pid: number, options: { timeoutMs?: number; expect?: string } = {}): Promise<void> {
  if (!isAlive(pid)) return;
  if (options.expect !== undefined) {
    const cmd = commandLine(pid);
    if (cmd !== undefined && !cmd.join(" ").includes(options.expect)) return;
  }
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  if (await waitForExit(pid, options.timeoutMs ?? 10_000)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    return;
  }
  await waitForExit(pid, 5_000);
}
