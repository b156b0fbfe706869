// Samples the server pods while a rollout runs: how many are not Ready at once, and the order
// in which servers were restarted (a pod replaced under the same name).
import type { Kube } from "../../../../shared/kube/client.ts";
import type { KubeObject } from "../../../../shared/kube/object.ts";

type Pod = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

export interface PodSampler {
  maxNotReady: number;
  samples: number;
  restarts: string[];
  /** Every pod uid seen per server: two for a server restarted once, more for one restarted again. */
  podsSeen: Map<string, Set<string>>;
  stop(): Promise<void>;
}

export function samplePods(
  kube: Kube,
  namespace: string,
  cluster: string,
  servers: number,
  intervalMs = 200,
): PodSampler {
  const sampler = { maxNotReady: 0, samples: 0, restarts: [] as string[], podsSeen: new Map<string, Set<string>>() };
  const uids = new Map<string, string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const pods = await kube.list<Pod>({
          apiVersion: "v1",
          kind: "Pod",
          namespace,
          labelSelector: `cluster.nats-operator.io/cluster=${cluster}`,
        });
        const ready = pods.filter(
          (p) =>
            !p.metadata.deletionTimestamp &&
            p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        );
        sampler.maxNotReady = Math.max(sampler.maxNotReady, servers - ready.length);
        sampler.samples++;
        for (const pod of pods) {
          const server = pod.metadata.labels?.["cluster.nats-operator.io/server"] ?? pod.metadata.name;
          const before = uids.get(server);
          if (before !== undefined && before !== pod.metadata.uid && !sampler.restarts.includes(server))
            sampler.restarts.push(server);
          uids.set(server, pod.metadata.uid ?? "");
          sampler.podsSeen.set(server, (sampler.podsSeen.get(server) ?? new Set()).add(pod.metadata.uid ?? ""));
        }
      } catch {
        // a failed sample is skipped
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return Object.assign(sampler, {
    async stop() {
      running = false;
      await loop;
    },
  });
}
