// The operator as its own process, `nats-operator run` against the cluster a kubeconfig names:
// what runs beside a second control plane, as it would beside a second Kubernetes cluster.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ChildOperator {
  /** Its log lines (JSON), as they came. */
  log: string[];
  stop(): Promise<void>;
}

const entry = fileURLToPath(new URL("../../../../bin/nats-operator.ts", import.meta.url));

export function runOperator(kubeconfig: string, env: Record<string, string> = {}): ChildOperator {
  const child = spawn(process.execPath, [entry, "run"], {
    env: { ...process.env, KUBECONFIG: kubeconfig, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString("utf8").split(/(?<=\n)/));
    if (log.length > 20000) log.splice(0, 10000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    log,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
