// A server replaced with replace-server while the API server fails step-rollout's delete of its
// StatefulSet once, then the delete of its claim once (issue 24): each failed delivery is retried,
// the claimed `Deleting` phase is carried on from what is left, and render-cluster brings the
// server back only on a new claim, never on the one the deletion left.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CLUSTER_ANNOTATIONS } from "../../../shared/api/index.ts";
import { createKube, type Kube } from "../../../shared/kube/client.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { createOperator, type TestOperator } from "../../support/nats-auth.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { clusterKey, quickstart, waitAtRest } from "./support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { installOperatorTrust, operatorModeAuth } from "./support/operator-mode.ts";
import { recordStatus } from "./support/recorder.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let nats: TestOperator;

const NAME = "rf";
const TARGET = `${NAME}-1`;
const CLAIM = `data-${TARGET}-0`;
/** The deletes failed so far, by kind: each fails once. */
const failed = new Set<string>();

/** The functions' client: fails the first delete of the target's StatefulSet, then of its claim. */
function faultyKube(base: Kube): Kube {
  return {
    ...base,
    async delete(key, options) {
      const fails =
        (key.kind === "StatefulSet" && key.name === TARGET) ||
        (key.kind === "PersistentVolumeClaim" && key.name === CLAIM && failed.has("StatefulSet"));
      if (fails && !failed.has(key.kind)) {
        failed.add(key.kind);
        throw new Error(`injected: the delete of ${key.kind} ${key.name} failed`);
      }
      return base.delete(key, options);
    },
  };
}

const claim = () =>
  env.kube.get<KubeObject>({ apiVersion: "v1", kind: "PersistentVolumeClaim", namespace, name: CLAIM });
const statefulSet = () =>
  env.kube.get<KubeObject>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace, name: TARGET });

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("removal-faults");
  operator = await startOperator(env.transport, { kube: faultyKube(createKube(env.transport)) });
  nats = await createOperator();
  await installOperatorTrust(env.kube, namespace, nats);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("server removal without crash windows", () => {
  it("carries a replacement on past a failed StatefulSet delete and a failed claim delete, onto a new claim", async () => {
    const manifest = quickstart(namespace, NAME);
    manifest.spec["auth"] = operatorModeAuth();
    await env.kube.create(manifest);
    await waitAtRest(env.kube, namespace, 300_000, NAME);
    const old = await claim();
    expect(old?.metadata.uid).toBeDefined();

    const phases = await recordStatus(env.transport, namespace, NAME, (c) =>
      (c.status?.removals ?? []).map((r) => `${r.name}:${r.phase}`),
    );
    // Once the old StatefulSet is gone: whenever one stands again, which claim its pod would run on.
    const claimsUnderServer = new Set<string>();
    let deleted = false;
    const watching = setInterval(() => {
      void Promise.all([statefulSet(), claim()])
        .then(([sts, c]) => {
          if (!sts) deleted = true;
          else if (deleted && c?.metadata.uid) claimsUnderServer.add(c.metadata.uid);
        })
        .catch(() => undefined);
    }, 250);
    try {
      await env.kube.patch(
        clusterKey(namespace, NAME),
        { metadata: { annotations: { [CLUSTER_ANNOTATIONS.replaceServer]: TARGET } } },
        "merge",
      );
      const back = await waitFor(
        `${TARGET} back on a new claim`,
        async () => {
          // Back on the old claim is the failure this test is about: no point waiting on.
          if (old?.metadata.uid && claimsUnderServer.has(old.metadata.uid)) return "back on its old claim";
          const [sts, c] = await Promise.all([statefulSet(), claim()]);
          return sts && c && c.metadata.uid !== old?.metadata.uid && !c.metadata.deletionTimestamp ? c : undefined;
        },
        { timeoutMs: 600_000, intervalMs: 2_000 },
      );
      if (typeof back === "string") throw new Error(`${TARGET} came ${back}`);
      expect([...failed].sort()).toEqual(["PersistentVolumeClaim", "StatefulSet"]);
      expect(back.metadata.uid).not.toBe(old?.metadata.uid);
      await waitFor("Rejoining recorded", async () => phases.seen.has(`${TARGET}:Rejoining`), { timeoutMs: 60_000 });
      expect([...phases.seen]).toEqual(expect.arrayContaining([`${TARGET}:Deleting`, `${TARGET}:Rejoining`]));
      // The StatefulSet stood again only once the old claim was gone.
      expect(deleted).toBe(true);
      expect([...claimsUnderServer]).toEqual([back.metadata.uid]);
    } finally {
      clearInterval(watching);
      phases.stop();
    }
  }, 900_000);
});
