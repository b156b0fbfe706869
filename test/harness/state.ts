// What a running harness consists of, written to a JSON file so that another
// process (`cli.ts down`, Jest's global teardown) can stop it.
import { readFile, writeFile, mkdir, rename } from "node:fs/promises";
import { dirname } from "node:path";

export type Profile = "apiserver" | "cluster" | "knative";

export interface ManagedProcess {
  name: string;
  pid: number;
  /** Occurs in the process's command line; guards against recycled PIDs. */
  expect: string;
}

export interface HarnessState {
  version: 1;
  runId: string;
  profile: Profile;
  workDir: string;
  kubeconfig: string;
  server: string;
  binDir: string;
  processes: ManagedProcess[];
  /** 127.A.B.0/24 block for pod addresses ("127.A.B"), cluster and knative profiles. */
  podSubnet?: string;
  /** File with the PIDs of nats-server processes the kubelet runs. */
  kubeletPidFile?: string;
  hostsFile?: string;
  startedAt: string;
  /** Milliseconds from start to ready, per phase. */
  timings: Record<string, number>;
}

export async function writeState(path: string, state: HarnessState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(tmp, path);
}

export async function readState(path: string): Promise<HarnessState | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as HarnessState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * Adds a process a test started to the harness recorded in `path`, so whoever stops that harness
 * (Jest's global teardown, or the watchdog when the run is killed) stops the process too.
 */
export async function trackProcess(path: string, process: ManagedProcess): Promise<void> {
  const state = await readState(path);
  if (state === undefined) return;
  await writeState(path, { ...state, processes: [...state.processes, process] });
}
