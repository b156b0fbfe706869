// Samples a NatsCluster's status in the background and keeps every distinct value a test asks
// for (Progressing reasons, removal phases), so a test can assert what it passed through.
import type { Cluster } from "../../../../functions/cluster/index.ts";
import type { Kube } from "../../../../shared/kube/client.ts";
import { readCluster } from "./natscluster.ts";

export interface StatusRecorder {
  seen: Set<string>;
  stop(): void;
}

export function recordStatus(
  kube: Kube,
  namespace: string,
  name: string,
  pick: (cluster: Cluster) => string[],
  intervalMs = 250,
): StatusRecorder {
  const seen = new Set<string>();
  let running = true;
  void (async () => {
    while (running) {
      const cluster = await readCluster(kube, namespace, name).catch(() => undefined);
      if (cluster) for (const value of pick(cluster)) seen.add(value);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    seen,
    stop: () => {
      running = false;
    },
  };
}
