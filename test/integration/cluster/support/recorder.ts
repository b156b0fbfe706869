// Watches a NatsCluster and keeps every distinct value a test asks for (Progressing reasons,
// removal phases), so a test can assert what the status passed through. A watch sees every
// write, however brief the state it records; polling on a busy machine can step over one.
import type { Cluster } from "../../../../functions/cluster/index.ts";
import type { KubeTransport, WatchEvent } from "../../../../shared/kube/transport.ts";
import { API_VERSION } from "./natscluster.ts";

export interface StatusRecorder {
  seen: Set<string>;
  stop(): void;
}

/** Resolves once the watch has delivered the object as it is, so no later write goes unseen. */
export async function recordStatus(
  transport: KubeTransport,
  namespace: string,
  name: string,
  pick: (cluster: Cluster) => string[],
): Promise<StatusRecorder> {
  const seen = new Set<string>();
  const abort = new AbortController();
  const path = `/apis/${API_VERSION}/namespaces/${namespace}/natsclusters`;
  let resourceVersion: string | undefined;
  let watching!: () => void;
  const started = new Promise<void>((resolve) => (watching = resolve));
  const onEvent = (event: WatchEvent) => {
    if (event.type === "ERROR") resourceVersion = undefined;
    if (event.type !== "ADDED" && event.type !== "MODIFIED") return;
    const cluster = event.object as unknown as Cluster;
    resourceVersion = cluster.metadata.resourceVersion;
    for (const value of pick(cluster)) seen.add(value);
    watching();
  };
  void (async () => {
    // The API server ends a watch after a while: go on from the last version seen, or from the
    // object as it is if that version is gone.
    while (!abort.signal.aborted) {
      const query = new URLSearchParams({ watch: "true", fieldSelector: `metadata.name=${name}` });
      if (resourceVersion) query.set("resourceVersion", resourceVersion);
      const failed = await transport.watch(`${path}?${query}`, onEvent, abort.signal).then(
        () => false,
        () => true,
      );
      if (failed) {
        resourceVersion = undefined;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  })();
  await started;
  return { seen, stop: () => abort.abort() };
}
