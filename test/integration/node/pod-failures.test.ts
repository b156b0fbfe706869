// harness: real node
// What a platform team's cluster refuses or cannot run reaches the NatsCluster: a podTemplate the
// namespace's Pod Security level refuses, an image the node does not have, a server that exits at
// start. Each reads `Ready=False` with a reason and a message naming the server and the cause, with
// one Warning Event, and a healthy cluster beside it in the same namespace is left alone.
// The harness installs the CRDs without the chart's podTemplate policy, as an install with
// cluster.allowUnrestrictedPodTemplate does, so the privileged podTemplate reaches the API server
// and Pod Security is what refuses it; with the policy bound it is refused at apply
// (test/integration/cluster/pod-template-policy.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { API_VERSION, condition, readCluster, waitAtRest } from "../cluster/support/natscluster.ts";
import { waitFor } from "../../harness/wait.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import type { Cluster } from "../../../functions/cluster/index.ts";

let env: Environment;
let operator: RunningOperator;

beforeAll(async () => {
  env = await startEnvironment();
  operator = await startOperator(env.transport);
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

/** A one-server cluster with `nats`'s container overridden by `nats`. */
function cluster(namespace: string, name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: "NatsCluster",
    metadata: { name, namespace },
    spec: { version: "2.15.2", replicas: 1, ...spec },
  } as KubeObject;
}

const natsContainer = (override: Record<string, unknown>) => ({
  podTemplate: { spec: { containers: [{ name: "nats", ...override }] } },
});

async function readyFalse(namespace: string, name: string, reason: string): Promise<Cluster> {
  return waitFor(
    `${namespace}/${name} Ready=False ${reason}`,
    async () => {
      const found = await readCluster(env.kube, namespace, name);
      const ready = condition(found, "Ready");
      return ready?.status === "False" && ready.reason === reason ? found : undefined;
    },
    { timeoutMs: 120_000 },
  );
}

interface Event extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { kind?: string; name?: string };
}

/**
 * The Warning Events on the NatsCluster, once there is one: step-rollout records its Event after
 * the status write that claims it, so the condition can be read before the Event exists.
 */
async function warnings(namespace: string, name: string): Promise<Event[]> {
  return waitFor(
    `a Warning Event on ${namespace}/${name}`,
    async () => {
      const events = await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace });
      const found = events.filter(
        (e) => e.type === "Warning" && e.regarding?.kind === "NatsCluster" && e.regarding.name === name,
      );
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 30_000 },
  );
}

describe("pods the node does not run", () => {
  it("reads PodRefused, naming the refused field, when the restricted namespace refuses a privileged server", async () => {
    const namespace = await env.namespace("pod-security");
    await env.kube.create(cluster(namespace, "other"));
    await env.kube.create(
      cluster(
        namespace,
        "privileged",
        natsContainer({ securityContext: { privileged: true, allowPrivilegeEscalation: true } }),
      ),
    );
    const refused = await readyFalse(namespace, "privileged", "PodRefused");
    expect(condition(refused, "Ready")?.message).toContain(
      `server privileged-0: pod refused by the namespace's Pod Security level "restricted:latest": privileged (container "nats" must not set securityContext.privileged=true)`,
    );
    expect((await warnings(namespace, "privileged")).map((e) => e.reason)).toEqual(["PodRefused"]);
    const other = await waitAtRest(env.kube, namespace, 120_000, "other");
    expect(condition(other, "Ready")?.status).toBe("True");
  }, 300_000);

  it("reads ImageUnavailable, naming the image, when the node does not have it", async () => {
    const namespace = await env.namespace("image");
    await env.kube.create(
      cluster(namespace, "missing", {
        image: { repository: "example.invalid/nats" },
        ...natsContainer({ imagePullPolicy: "Never" }),
      }),
    );
    const missing = await readyFalse(namespace, "missing", "ImageUnavailable");
    expect(condition(missing, "Ready")?.message).toContain(
      `server missing-0: container "nats" cannot get image "example.invalid/nats:2.15.2"`,
    );
    expect((await warnings(namespace, "missing")).map((e) => e.reason)).toEqual(["ImageUnavailable"]);
  }, 300_000);

  it("reads CrashLooping, with the exit code, when the server exits at start", async () => {
    const namespace = await env.namespace("crash");
    await env.kube.create(cluster(namespace, "crashing", natsContainer({ args: ["--no-such-flag"] })));
    const crashing = await readyFalse(namespace, "crashing", "CrashLooping");
    expect(condition(crashing, "Ready")?.message).toMatch(
      /server crashing-0: container "nats" crash-looping \(last exit code \d+/,
    );
    expect((await warnings(namespace, "crashing")).map((e) => e.reason)).toEqual(["CrashLooping"]);
  }, 300_000);
});
