// harness: real node
// A rolling restart with a fault injected: while the operator restarts a 3-server JetStream cluster
// one server at a time, a server it is not restarting is killed (SIGKILL; the kubelet restarts it
// in the same pod). Publishers with a unique id per message run on an R3 and an R1 stream
// throughout. Afterwards every acknowledged message is on every replica of its stream, each
// server was replaced by the rollout once, and the rollout finished. Which step the fault hits,
// after how long, and which server it kills come from a seed: NATS_OPERATOR_SAFETY_SEED replays a
// run, and the seed is printed with the result. Then the same move with the API server failing a
// share of the functions' requests: 429s, 503s, and writes applied whose answer is lost, with the
// resync recovering the deliveries the Broker gives up on.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { condition } from "../cluster/support/natscluster.ts";
import type { History } from "./support/history.ts";
import { rollingRestart, SERVERS } from "./support/rolling-restart.ts";
import { seededRandom, seedOfRun } from "./support/seed.ts";
import { startSafetyCluster } from "./support/safety-cluster.ts";
import { withApiFaults } from "./support/api-faults.ts";
import { resyncPingSources } from "../support/resync.ts";
import { killContainer } from "../../harness/node/container-faults.ts";
import type { HarnessState } from "../../harness/state.ts";
import { waitFor } from "../../harness/wait.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { createKube } from "../../../shared/kube/client.ts";

type Pod = KubeObject & {
  status?: { containerStatuses?: { name: string; containerID?: string; restartCount: number }[] };
};

const seed = seedOfRun();
const random = seededRandom(seed);

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let harness: HarnessState;
let history: History | undefined;

beforeAll(async () => {
  ({ harness, env, operator, namespace } = await startSafetyCluster("safety"));
}, 420_000);

afterAll(async () => {
  await history?.close();
  await operator?.stop();
  await env?.stop();
}, 120_000);

const natsContainer = async (server: string) => {
  const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: `${server}-0` });
  return pod?.status?.containerStatuses?.find((c) => c.name === "nats");
};

describe("a rolling restart with a server killed during one of its steps", () => {
  it("loses no acknowledged message on any replica, and replaces each server once", async () => {
    const result = await rollingRestart(env.kube, namespace, { memory: "320Mi" }, async (steps) => {
      // During the rollout's step `step` (1 to 3), `delayMs` after it starts, a server other than
      // the one being restarted.
      const step = 1 + Math.floor(random() * 3);
      const delayMs = Math.floor(random() * 3_000);
      const pick = random();
      const restarting = await steps.reached(step);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const others = SERVERS.filter((s) => s !== restarting);
      const victim = others[Math.floor(pick * others.length)] ?? "demo-0";
      const before = await natsContainer(victim);
      if (before?.containerID === undefined) throw new Error(`${victim} has no running nats container to kill`);
      await killContainer(harness, before.containerID);
      await waitFor(
        `${victim} back after the kill`,
        async () => {
          const after = await natsContainer(victim);
          // The pod is the same one (the kubelet restarted its container) or the rollout replaced it.
          return after && (after.restartCount > before.restartCount || after.containerID !== before.containerID);
        },
        { timeoutMs: 120_000 },
      );
      return `seed ${seed}: SIGKILL of ${victim} ${delayMs} ms into step ${step} (restarting ${restarting})`;
    });
    history = result.history;
    process.stdout.write(`${result.summary}\n`);

    expect({ fault: result.fault, losses: result.losses.slice(0, 10) }).toEqual({ fault: result.fault, losses: [] });
    expect(result.replicasRead["SAFE3"]).toHaveLength(3);
    expect(condition(result.rolled, "Progressing")).toMatchObject({ status: "False", reason: "UpToDate" });
    // The rollout replaced each server's pod once: the kill restarted a container, not a pod.
    expect(result.podsSeen).toEqual({ "demo-0": 2, "demo-1": 2, "demo-2": 2 });
  }, 1_200_000);

  it("the checker sees an acknowledged message gone from a stream, on every replica", async () => {
    if (history === undefined) throw new Error("the rollout test did not start the history");
    const taken = history.acknowledged.find((a) => a.stream === "SAFE3");
    if (taken === undefined) throw new Error("nothing acknowledged on SAFE3");
    await history.remove(taken);
    const { losses } = await history.check();
    expect(losses.map((l) => [l.id, l.found])).toEqual([
      [taken.id, undefined],
      [taken.id, undefined],
      [taken.id, undefined],
    ]);
  }, 300_000);
});

describe("a rolling restart while the API server fails a tenth of the functions' requests", () => {
  it("loses no acknowledged message on any replica, replaces each server once, and finishes", async () => {
    // The functions' client fails requests; the event sources watch through the plain transport.
    // A render-cluster delivery makes twenty requests or more (one in ten gets through all of
    // them), so many fail every retry the Broker gives them and are dropped: the resync recovers
    // them, as in production (here every 10 seconds), trying each again with backoff.
    const faulty = withApiFaults(env.transport, random, 0.1);
    await operator.stop();
    operator = await startOperator(env.transport, { kube: createKube(faulty) });
    for (const source of await resyncPingSources(namespace, "*/10 * * * * *")) await env.kube.create(source);
    const result = await rollingRestart(
      env.kube,
      namespace,
      { memory: "288Mi" },
      async () => `seed ${seed}: a tenth of the functions' API requests failed`,
    );
    await result.history.close();
    const { throttled, unavailable, answersLost, requests } = faulty.counts;
    process.stdout.write(
      `${result.summary}; API faults: ${throttled} 429s, ${unavailable} 503s, ${answersLost} answers lost of ${requests} requests\n`,
    );

    expect({ fault: result.fault, losses: result.losses.slice(0, 10) }).toEqual({ fault: result.fault, losses: [] });
    expect(throttled + unavailable + answersLost).toBeGreaterThan(0);
    expect(condition(result.rolled, "Progressing")).toMatchObject({ status: "False", reason: "UpToDate" });
    expect(result.podsSeen).toEqual({ "demo-0": 2, "demo-1": 2, "demo-2": 2 });
  }, 1_200_000);
});
