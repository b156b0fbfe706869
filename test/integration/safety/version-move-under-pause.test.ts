// harness: real node
// A version move (nats-server 2.15.2 to 2.15.3) with a server frozen during one of its steps: as
// soon as the rollout restarts a server, another one is paused through containerd (every process
// stopped, as SIGSTOP would, its connections left open) for 25 seconds, then resumed. The gate
// must hold the next step until the frozen server answers again: restarting a second server while
// one is frozen would leave an R3 stream without a quorum. Publishers with a unique id per message
// run on an R3 and an R1 stream; afterwards every acknowledged message is on every replica.
// The step and the server come from a seed (NATS_OPERATOR_SAFETY_SEED replays a run).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Environment } from "../support/environment.ts";
import type { RunningOperator } from "../support/operator.ts";
import { condition } from "../cluster/support/natscluster.ts";
import type { History } from "./support/history.ts";
import { rollingRestart, SERVERS } from "./support/rolling-restart.ts";
import { seededRandom, seedOfRun } from "./support/seed.ts";
import { startSafetyCluster } from "./support/safety-cluster.ts";
import { pauseContainer, resumeContainer } from "../../harness/node/container-faults.ts";
import type { HarnessState } from "../../harness/state.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";

type Pod = KubeObject & { status?: { containerStatuses?: { name: string; containerID?: string }[] } };

const seed = seedOfRun();
const random = seededRandom(seed);
const FROZEN_MS = 25_000;

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let harness: HarnessState;
let history: History | undefined;

beforeAll(async () => {
  ({ harness, env, operator, namespace } = await startSafetyCluster("safety-pause"));
}, 420_000);

afterAll(async () => {
  await history?.close();
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("a version move with a server frozen during one of its steps", () => {
  it("holds the next step until the frozen server answers, loses no acknowledged message, and moves every server once", async () => {
    let resumedAt = 0;
    let nextStepAt: number | undefined;
    const result = await rollingRestart(env.kube, namespace, { version: "2.15.3" }, async (steps) => {
      // Step 1 or 2, so that a next step exists for the gate to hold.
      const step = 1 + Math.floor(random() * 2);
      const pick = random();
      const restarting = await steps.reached(step);
      // Watched from now on, so the next step is timed when it begins, not when it is asked for.
      const next = steps.reached(step + 1);
      const others = SERVERS.filter((s) => s !== restarting);
      const victim = others[Math.floor(pick * others.length)] ?? "demo-0";
      const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: `${victim}-0` });
      const container = pod?.status?.containerStatuses?.find((c) => c.name === "nats")?.containerID;
      if (container === undefined) throw new Error(`${victim} has no running nats container to pause`);
      await pauseContainer(harness, container);
      // The fault's length, not a wait for a condition: the server stays frozen this long.
      await new Promise((resolve) => setTimeout(resolve, FROZEN_MS));
      await resumeContainer(harness, container);
      resumedAt = Date.now();
      await next;
      nextStepAt = steps.seenAt(step + 1);
      const after = nextStepAt === undefined ? "never seen" : `${nextStepAt - resumedAt} ms after the resume`;
      return `seed ${seed}: ${victim} frozen ${FROZEN_MS / 1000} s from the start of step ${step} (restarting ${restarting}); step ${step + 1} began ${after}`;
    });
    history = result.history;
    process.stdout.write(`${result.summary}\n`);

    expect({ fault: result.fault, losses: result.losses.slice(0, 10) }).toEqual({ fault: result.fault, losses: [] });
    expect(result.replicasRead["SAFE3"]).toHaveLength(3);
    // The next step began only once the frozen server was back.
    expect(nextStepAt).toBeGreaterThanOrEqual(resumedAt);
    expect(result.rolled.status?.version).toBe("2.15.3");
    expect(result.rolled.status?.servers?.map((s) => s.version)).toEqual(["2.15.3", "2.15.3", "2.15.3"]);
    expect(condition(result.rolled, "Progressing")).toMatchObject({ status: "False", reason: "UpToDate" });
    // The move replaced each server's pod once; the pause replaced none.
    expect(result.podsSeen).toEqual({ "demo-0": 2, "demo-1": 2, "demo-2": 2 });
  }, 1_200_000);
});
