// cert-manager on the harness: its own CRDs (the module's deploy/crds, unchanged) installed, and
// its controller (test/infra/cert-manager, built by test/infra/build-cert-manager.sh) run as a host
// process against the harness's kubeconfig, leader election off. It issues Certificates from
// SelfSigned and CA Issuers and ClusterIssuers; there is no webhook (its CRDs need none).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { installCrds, loadCrdFiles } from "./crds.ts";
import { isAlive, spawnDetached, stopPid } from "./processes.ts";
import { waitFor } from "./wait.ts";

/** What the controller prints once its controllers are constructed and its informers started. */
const RUNNING_LINE = "cert-manager: running";

export interface RunningCertManager {
  pid: number;
  /** Occurs in the process's command line: what stopPid checks before signalling. */
  expect: string;
  logFile: string;
  stop(): Promise<void>;
}

function readLog(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/**
 * Installs cert-manager's CRDs and starts its controller; `dir` is what ensureCertManager()
 * returned. Resolves once the controller runs; throws with its log's tail if it exits first.
 */
export async function startCertManager(options: {
  dir: string;
  kubeconfig: string;
  logFile: string;
  cwd?: string;
  timeoutMs?: number;
}): Promise<RunningCertManager> {
  const { dir, kubeconfig, logFile } = options;
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  await installCrds(kc, await loadCrdFiles(join(dir, "crds")));
  const binary = join(dir, "cert-manager");
  const pid = spawnDetached(binary, [`--kubeconfig=${kubeconfig}`, "--v=1"], {
    logFile,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const stop = () => stopPid(pid, { expect: binary, timeoutMs: 10_000 });
  try {
    await waitFor(
      `cert-manager to run (log: ${logFile})`,
      () => {
        if (!isAlive(pid)) throw new Error(`cert-manager exited; last lines of ${logFile}:\n${tail(logFile)}`);
        return readLog(logFile).includes(RUNNING_LINE);
      },
      { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 200 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid, expect: binary, logFile, stop };
}

function tail(file: string, lines = 25): string {
  return readLog(file).split("\n").slice(-lines).join("\n");
}
