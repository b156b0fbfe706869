// oidc.verifyDeliveries on real Knative Eventing with its OIDC on (`authentication-oidc: enabled`)
// and the functions as Knative Services on real Knative Serving, installed by `helm install` of
// chart/ with the value: each delivery goes Broker filter → Traefik → activator (from zero pods) →
// queue-proxy → the function, with the Trigger's token in `Authorization`, and is handled. A pod in
// another namespace POSTing through the same URL without a token, with its own token (the API
// server's audience) or with a token of its account for the function's audience is answered 401.
// The control plane is this file's own, so the flag touches no other Knative file.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "../../harness/wait.ts";
import {
  functionPods,
  helmInstallOperator,
  startKnativeCluster,
  type KnativeCluster,
} from "./support/knative-cluster.ts";

const FUNCTION_URL = "http://sync-stream.nats-operator.svc.cluster.local";

let k: KnativeCluster | undefined;
const cluster = (): KnativeCluster => {
  if (k === undefined) throw new Error("no control plane");
  return k;
};

/** Names of the running pods of the sync-stream Knative Service. */
const syncStreamPods = async (): Promise<string[]> =>
  [...(await functionPods(cluster())).values()].filter((name) => name.startsWith("sync-stream-"));

/** A body as JSON, or as the text it is when it is not JSON. */
function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

beforeAll(async () => {
  k = await startKnativeCluster({ serving: true });
  await k.kubectl(
    "patch",
    "configmap",
    "config-features",
    "-n",
    "knative-eventing",
    "--type",
    "merge",
    "-p",
    JSON.stringify({ data: { "authentication-oidc": "enabled" } }),
  );
  await helmInstallOperator(k, ["--set", "oidc.verifyDeliveries=true"]);
}, 900_000);

afterAll(async () => {
  await k?.stop();
}, 120_000);

describe("the functions with oidc.verifyDeliveries as Knative Services, with Eventing's OIDC on", () => {
  it("have Triggers Ready, each with its OIDC identity, delivering to the function's Knative Service URL", async () => {
    await cluster().kubectl(
      "wait",
      "--for=condition=Ready",
      "brokers,triggers,ksvc",
      "--all",
      "-n",
      "nats-operator",
      "--timeout=240s",
    );
    const trigger = await cluster().kubectl(
      "get",
      "trigger",
      "sync-stream",
      "-n",
      "nats-operator",
      "-o",
      "jsonpath={.status.auth.serviceAccountName} {.status.subscriberUri}",
    );
    expect(trigger).toBe(`sync-stream-oidc-eventing.knative.dev-trigger ${FUNCTION_URL}`);
  }, 260_000);

  it("take the Broker's deliveries from zero pods: a NatsConnection gets its Ready from sync-stream", async () => {
    // At zero pods the revision's endpoints are the activator's: the delivery is held there while
    // the pod starts, then passed through the queue-proxy with its Authorization header.
    await waitFor("sync-stream at zero pods", async () => ((await syncStreamPods()).length === 0 ? true : undefined), {
      timeoutMs: 180_000,
      intervalMs: 2_000,
    });
    await cluster().apply(`
apiVersion: v1
kind: Namespace
metadata: { name: team-a }
---
apiVersion: nats-operator.io/v1beta1
kind: NatsConnection
metadata: { name: nowhere, namespace: team-a }
spec:
  servers: ["nats://nowhere.team-a.svc:4222"]
`);
    const conditions = await waitFor(
      "team-a/nowhere has conditions",
      async () => {
        const c = await cluster().conditions("natsconnection", "team-a", "nowhere");
        return Object.keys(c).length > 0 ? c : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 2_000 },
    );
    // Its server does not exist: sync-stream says so, which only a handled delivery can write.
    expect(conditions["Ready"]).toMatch(/^False\//);
  }, 440_000);

  it("answer 401 to a pod in another namespace POSTing through the function's URL, with no token or a foreign one", async () => {
    const kubectl = cluster().kubectl;
    await kubectl("create", "serviceaccount", "intruder", "-n", "team-a");
    const token = (
      await kubectl(
        "create",
        "token",
        "intruder",
        "-n",
        "team-a",
        "--audience",
        "serving.knative.dev/service/nats-operator/sync-stream",
      )
    ).trim();
    await cluster().apply(`
apiVersion: v1
kind: Pod
metadata: { name: intruder, namespace: team-a }
spec:
  serviceAccountName: intruder
  restartPolicy: Never
  containers:
    - name: post
      image: harness.local/nats-operator:test
      command: [/nodejs/bin/node, --input-type=module, -e]
      args:
        - |
          import { readFileSync } from "node:fs";
          const own = readFileSync("/var/run/secrets/kubernetes.io/serviceaccount/token", "utf8").trim();
          const post = async (authorization) => {
            const response = await fetch(process.env.FUNCTION_URL, {
              method: "POST",
              signal: AbortSignal.timeout(120_000),
              headers: {
                "content-type": "application/json",
                "ce-specversion": "1.0",
                "ce-id": "forged-1",
                "ce-type": "dev.knative.sources.ping",
                "ce-source": "forged",
                "ce-target": "sync-stream",
                ...(authorization === undefined ? {} : { authorization }),
              },
              body: JSON.stringify({ resync: true }),
            });
            return { status: response.status, body: await response.text() };
          };
          const answers = [await post(), await post("Bearer " + own), await post("Bearer " + process.env.AUDIENCE_TOKEN)];
          console.log("ANSWERS " + JSON.stringify(answers));
      env:
        - { name: FUNCTION_URL, value: "${FUNCTION_URL}" }
        - { name: AUDIENCE_TOKEN, value: "${token}" }
`);
    const phase = await waitFor(
      "team-a/intruder finished",
      async () => {
        const p = await kubectl("get", "pod", "intruder", "-n", "team-a", "-o", "jsonpath={.status.phase}");
        return p === "Succeeded" || p === "Failed" ? p : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 2_000 },
    );
    const uid = await kubectl("get", "pod", "intruder", "-n", "team-a", "-o", "jsonpath={.metadata.uid}");
    const podsDir = join(cluster().harness.workDir, "pods", "team-a");
    const dir = (await readdir(podsDir)).find((d) => d === `intruder-${uid.slice(0, 8)}`) ?? "";
    const log = await readFile(join(podsDir, dir, "logs", "post.log"), "utf8");
    const line = log.split("\n").find((l) => l.startsWith("ANSWERS "));
    const answers = line === undefined ? log : (JSON.parse(line.slice(8)) as { status: number; body: string }[]);
    const unauthenticated = { status: 401, body: { status: "unauthenticated" } };
    expect([
      phase,
      typeof answers === "string" ? answers : answers.map((a) => ({ status: a.status, body: parsed(a.body) })),
    ]).toEqual(["Succeeded", [unauthenticated, unauthenticated, unauthenticated]]);
  }, 300_000);
});
