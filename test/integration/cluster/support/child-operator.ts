// The operator as its own process, `nats-operator run` against the cluster a kubeconfig names:
// what runs beside a second control plane, as it would beside a second Kubernetes cluster.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ChildOperator {
  /** Its log lines (JSON), as they came. */
  log: string[];
  /**
   * Once it watches every kind: objects made before then are not delivered (as with Knative's
   * adapter, they are the resync's), so a test makes its objects after this.
   */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const entry = fileURLToPath(new URL("../../../../bin/nats-operator.ts", import.meta.url));
const clusterDnsPreload = fileURLToPath(new URL("../../../harness/cluster-dns-preload.ts", import.meta.url));

/** `clusterDns`: the cluster's DNS server (a real node's CoreDNS), which resolves its in-cluster names. */
export function runOperator(kubeconfig: string, env: Record<string, string> = {}, clusterDns?: string): ChildOperator {
  const dns = clusterDns === undefined ? [] : ["--import", clusterDnsPreload];
  const child = spawn(process.execPath, [...dns, entry, "run"], {
    env: { ...process.env, KUBECONFIG: kubeconfig, NATS_OPERATOR_CLUSTER_DNS: clusterDns ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  let watching = () => {};
  const ready = new Promise<void>((resolve) => (watching = resolve));
  const keep = (chunk: Buffer) => {
    const lines = chunk.toString("utf8").split(/(?<=\n)/);
    if (lines.some((line) => line.includes('"msg":"watching every kind"'))) watching();
    log.push(...lines);
    if (log.length > 20000) log.splice(0, 10000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    log,
    ready,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
