// One move under the history checker: a restart-only change of the NatsCluster `demo` (three
// JetStream servers, at rest: its memory, or its version) rolled by the operator while publishers
// run on an R3 and an R1 stream; `fault` injects the fault once the rollout runs, and says what it did. Returns what the
// invariants need: what each replica lacks, how often each server's pod was replaced, the cluster
// at rest afterwards.
import type { Kube } from "../../../../shared/kube/client.ts";
import type { Cluster } from "../../../../functions/cluster/index.ts";
import { clusterKey, readCluster, waitAtRest } from "../../cluster/support/natscluster.ts";
import { samplePods } from "../../cluster/support/sampler.ts";
import { waitFor } from "../../../harness/wait.ts";
import { startHistory, type History, type Loss } from "./history.ts";

export const SERVERS = ["demo-0", "demo-1", "demo-2"];

export interface Steps {
  /** The server the rollout restarts in its step `n` (1-based), once that step has begun. */
  reached(n: number): Promise<string>;
  /** When step `n` was first seen (Date.now()), once it has been. */
  seenAt(n: number): number | undefined;
}

export interface RollingRestartResult {
  history: History;
  fault: string;
  losses: Loss[];
  replicasRead: Record<string, string[]>;
  /** Pods seen per server: 2 for a server the rollout replaced once. */
  podsSeen: Record<string, number>;
  rolled: Cluster;
  summary: string;
}

/** The restart-only change rolled out: the servers' memory request and limit, or their version. */
export type Move = { memory: string } | { version: string };

const specOf = (move: Move) =>
  "memory" in move
    ? { resources: { requests: { cpu: "100m", memory: move.memory }, limits: { memory: move.memory } } }
    : { version: move.version };

export async function rollingRestart(
  kube: Kube,
  namespace: string,
  move: Move,
  fault: (steps: Steps) => Promise<string>,
): Promise<RollingRestartResult> {
  const urls = SERVERS.map((s) => `nats://${s}-0.demo-headless.${namespace}.svc:4222`);
  const history = await startHistory(urls, [
    { name: "SAFE3", subject: "safe3", replicas: 3 },
    { name: "SAFE1", subject: "safe1", replicas: 1 },
  ]);
  await waitFor(
    "both streams taking publishes",
    async () => history.count("SAFE3") > 10 && history.count("SAFE1") > 10,
    {
      timeoutMs: 60_000,
    },
  );
  const sampler = samplePods(kube, namespace, "demo", SERVERS.length);
  await kube.patch(clusterKey(namespace), { spec: specOf(move) }, "merge");
  const seen: string[] = [];
  const seenAt: number[] = [];
  const steps: Steps = {
    reached: (n) =>
      waitFor(
        `the rollout's step ${n}`,
        async () => {
          const current = (await readCluster(kube, namespace))?.status?.rollout?.current;
          if (current !== undefined && seen.at(-1) !== current) {
            seen.push(current);
            seenAt.push(Date.now());
          }
          return seen.length >= n ? seen[n - 1] : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 250 },
      ),
    seenAt: (n) => seenAt[n - 1],
  };
  const injected = await fault(steps);
  const rolled = await waitAtRest(kube, namespace, 900_000);
  const atRest = history.count("SAFE3");
  await waitFor("publishes acknowledged at rest", async () => history.count("SAFE3") > atRest + 10, {
    timeoutMs: 60_000,
  });
  await history.stop();
  await sampler.stop();
  const { losses, replicasRead } = await history.check();
  const summary =
    `safety: ${injected}; ${history.acknowledged.length} acknowledged (SAFE3 ${history.count("SAFE3")}, ` +
    `SAFE1 ${history.count("SAFE1")}), ${history.unacknowledged} unacknowledged; replicas read ` +
    `${JSON.stringify(replicasRead)}; ${losses.length} lost`;
  return {
    history,
    fault: injected,
    losses,
    replicasRead,
    podsSeen: Object.fromEntries([...sampler.podsSeen].map(([server, uids]) => [server, uids.size])),
    rolled,
    summary,
  };
}
