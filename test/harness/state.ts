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
  /**
   * The real node's directory (containerd's root, the kubelet's pods), its build's bin directory
   * (ctr, for importing images) and the host's end of its link, when the run has one.
   */
  realNode?: { dir: string; bin: string; hostLinkIp: string };
  /** The cluster's DNS server (CoreDNS on the real node). */
  clusterDns?: string;
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

/**
 * The address a process the test starts on the host listens on so that pods reach it: the host's
 * end of the real node's link, or loopback, where the simulated kubelet runs pods as host processes.
 */
export function addressPodsReach(state: HarnessState | undefined): string {
  return state?.realNode?.hostLinkIp ?? "127.0.0.1";
}

/** The harness this Jest process runs on (its global setup's state), if any. */
export async function currentHarness(): Promise<HarnessState | undefined> {
  const stateFile = process.env["NATS_OPERATOR_HARNESS_STATE"];
  return stateFile === undefined ? undefined : readState(stateFile);
}

/** The node kind this Jest process runs on, for a test that starts a second control plane like its own. */
export function nodeOfThisRun(): "real" | "simulated" {
  return process.env["NATS_OPERATOR_HARNESS_NODE"] === "real" ? "real" : "simulated";
}
