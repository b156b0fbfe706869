// What a NatsCluster's podTemplate may set: the chart's ValidatingAdmissionPolicy
// (chart/templates/pod-template-policy.yaml, rendered by the harness's helm) refuses at apply a
// podTemplate asking for a privileged container, a hostPath volume, the host's network or another
// ServiceAccount, naming the field; one setting resources and tolerations rolls out. The harness
// installs the CRDs only, as an install with cluster.allowUnrestrictedPodTemplate does (the
// Pod Security refusal of test/integration/node/pod-failures.test.ts is what such an install
// still has), so this file binds the policy itself, to its own namespace only.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { ensureHelm } from "../../harness/binaries.ts";
import { repoRoot } from "../../harness/paths.ts";
import { waitFor } from "../../harness/wait.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { API_VERSION, condition, waitAtRest } from "./support/natscluster.ts";

type Manifest = KubeObject & { spec: Record<string, unknown> };

const policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let policyName: string;

/** The policy and its binding as the chart renders them with the default values. */
async function renderPolicy(): Promise<Manifest[]> {
  const helm = await ensureHelm(() => undefined);
  const home = mkdtempSync(join(tmpdir(), "nats-operator-helm-"));
  const { stdout } = await promisify(execFile)(
    helm,
    ["template", "nats-operator", join(repoRoot, "chart"), "--show-only", "templates/pod-template-policy.yaml"],
    { cwd: repoRoot, env: { PATH: process.env["PATH"] ?? "", HOME: home, KUBECONFIG: join(home, "none") } },
  );
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

function cluster(name: string, podTemplateSpec: Record<string, unknown>): Manifest {
  return {
    apiVersion: API_VERSION,
    kind: "NatsCluster",
    metadata: { name, namespace },
    spec: { version: "2.15.2", replicas: 1, podTemplate: { spec: podTemplateSpec } },
  };
}

/** The API server's answer to creating the cluster: the refusal's message, or "created". */
async function apply(manifest: Manifest, dryRun = false): Promise<string> {
  try {
    await env.transport.request("POST", `/apis/${API_VERSION}/namespaces/${namespace}/natsclusters`, {
      body: manifest,
      ...(dryRun ? { query: { dryRun: "All" } } : {}),
    });
    return "created";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("pod-template-policy");
  operator = await startOperator(env.transport, { namespaces: [namespace] });
  const [policy, binding] = await renderPolicy();
  if (policy?.kind !== "ValidatingAdmissionPolicy" || binding?.kind !== "ValidatingAdmissionPolicyBinding")
    throw new Error("the chart renders no policy and binding");
  // Named after the namespace and bound to it: other files' clusters are not judged.
  policyName = `${policy.metadata.name}-${namespace}`;
  await env.transport.request("POST", policies, { body: { ...policy, metadata: { name: policyName } } });
  await env.transport.request("POST", bindings, {
    body: {
      ...binding,
      metadata: { name: policyName },
      spec: {
        ...binding.spec,
        policyName,
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } } },
      },
    },
  });
  // A new policy takes effect once the API server has compiled it and seen its binding.
  await waitFor(
    "the policy in force",
    async () => (await apply(cluster("probe", { hostNetwork: true }), true)) !== "created",
    { timeoutMs: 30_000 },
  );
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  if (policyName) {
    await env.transport.request("DELETE", `${bindings}/${policyName}`).catch(() => undefined);
    await env.transport.request("DELETE", `${policies}/${policyName}`).catch(() => undefined);
  }
  await env?.stop();
}, 120_000);

describe("a podTemplate with the chart's default policy", () => {
  it.each([
    [
      "a privileged container",
      { containers: [{ name: "nats", securityContext: { privileged: true } }] },
      "spec.podTemplate.spec.containers[nats].securityContext.privileged",
    ],
    [
      "a hostPath volume",
      { volumes: [{ name: "host", hostPath: { path: "/" } }] },
      "spec.podTemplate.spec.volumes[host].hostPath",
    ],
    ["the host's network", { hostNetwork: true }, "spec.podTemplate.spec.hostNetwork"],
    ["another ServiceAccount", { serviceAccountName: "admin" }, "spec.podTemplate.spec.serviceAccountName"],
    [
      "a Secret read into the environment",
      {
        containers: [{ name: "nats", env: [{ name: "T", valueFrom: { secretKeyRef: { name: "other", key: "t" } } }] }],
      },
      "spec.podTemplate.spec.containers[nats].env.valueFrom.secretKeyRef",
    ],
    ["running as root", { securityContext: { runAsUser: 0 } }, "spec.podTemplate.spec.securityContext.runAsUser"],
    [
      "an extra container",
      { containers: [{ name: "sidecar", image: "busybox" }] },
      "spec.podTemplate.spec.containers[sidecar]",
    ],
  ])("refuses %s at apply, naming the field", async (_what, spec, field) => {
    const message = await apply(cluster("refused", spec));
    expect(message).toContain("ValidatingAdmissionPolicy");
    expect(message).toContain(`spec.podTemplate sets what this installation does not allow: ${field}`);
  });

  it("takes resources and tolerations, and the cluster rolls out", async () => {
    const toleration = { key: "dedicated", operator: "Equal", value: "nats", effect: "NoSchedule" };
    const resources = { requests: { cpu: "50m", memory: "128Mi" }, limits: { memory: "128Mi" } };
    expect(
      await apply(
        cluster("allowed", {
          tolerations: [toleration],
          containers: [{ name: "nats", resources, securityContext: { allowPrivilegeEscalation: false } }],
        }),
      ),
    ).toBe("created");
    const ready = await waitAtRest(env.kube, namespace, 120_000, "allowed");
    expect(condition(ready, "Ready")?.status).toBe("True");
    const statefulSet = await env.kube.get<KubeObject & { spec: { template: { spec: Record<string, unknown> } } }>({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      name: "allowed-0",
    });
    expect(statefulSet?.spec.template.spec["tolerations"]).toContainEqual(toleration);
    // An edit is judged as a new podTemplate is.
    const edit = env.kube.patch(
      { apiVersion: API_VERSION, kind: "NatsCluster", namespace, name: "allowed" },
      { spec: { podTemplate: { spec: { hostPID: true } } } },
      "merge",
    );
    await expect(edit).rejects.toThrow("spec.podTemplate.spec.hostPID");
  }, 180_000);
});
