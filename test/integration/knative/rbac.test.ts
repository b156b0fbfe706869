// The RBAC in knative/rbac.yaml, installed on the real API server and asked
// through SubjectAccessReviews: each function may do what it needs and no more.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { knativeDir } from "../../../shared/eventing/manifests.ts";
import { resourcePath, resourceTypeOf } from "../../../shared/kube/resource-types.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";

let env: Environment;

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

beforeAll(async () => {
  env = await startEnvironment();
  await env.transport.request("PATCH", "/api/v1/namespaces/nats-operator", {
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "nats-operator" } },
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: "rbac-test", force: true },
  });
  const text = await readFile(new URL("rbac.yaml", knativeDir), "utf8");
  for (const doc of parseAllDocuments(text)) {
    const manifest = doc.toJS() as Manifest;
    const type = manifest.kind.startsWith("Cluster")
      ? {
          group: "rbac.authorization.k8s.io",
          version: "v1",
          plural: manifest.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings",
          namespaced: false,
        }
      : resourceTypeOf(manifest.apiVersion, manifest.kind);
    await env.transport.request("PATCH", resourcePath(type, manifest.metadata.namespace, manifest.metadata.name), {
      body: manifest,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: "rbac-test", force: true },
    });
  }
}, 60_000);

afterAll(() => env?.stop());

async function allowed(
  serviceAccount: string,
  verb: string,
  group: string,
  resource: string,
  subresource = "",
): Promise<boolean> {
  const review = (await env.transport.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: `system:serviceaccount:nats-operator:${serviceAccount}`,
        groups: ["system:serviceaccounts", "system:serviceaccounts:nats-operator", "system:authenticated"],
        resourceAttributes: { namespace: "team-a", verb, group, resource, subresource },
      },
    },
  })) as { status: { allowed: boolean } };
  return review.status.allowed;
}

describe("least-privilege RBAC per function", () => {
  it.each([
    ["nats-operator-source", "watch", "cluster.nats-operator.io", "natsclusters", ""],
    ["nats-operator-source", "watch", "", "secrets", ""],
    ["nats-operator-render-cluster", "create", "apps", "statefulsets", ""],
    ["nats-operator-render-cluster", "create", "", "secrets", ""],
    ["nats-operator-render-cluster", "patch", "cluster.nats-operator.io", "natsclusters", "status"],
    ["nats-operator-render-cluster", "patch", "cluster.nats-operator.io", "natsclusters", ""],
    ["nats-operator-render-cluster", "get", "nats-operator.io", "natsoperatortrusts", ""],
    ["nats-operator-render-cluster", "list", "nats-operator.io", "natsreferencegrants", ""],
    ["nats-operator-step-rollout", "get", "nats-operator.io", "natsoperatortrusts", ""],
    ["nats-operator-render-cluster", "get", "nats-operator.io", "natsaccounttrusts", ""],
    ["nats-operator-step-rollout", "get", "nats-operator.io", "natsaccounttrusts", ""],
    ["nats-operator-step-rollout", "list", "nats-operator.io", "natsreferencegrants", ""],
    ["nats-operator-step-rollout", "delete", "", "persistentvolumeclaims", ""],
    ["nats-operator-step-rollout", "get", "", "services", ""],
    ["nats-operator-step-rollout", "get", "nats-operator.io", "natsconnections", ""],
    ["nats-operator-render-cluster", "get", "nats-operator.io", "natsconnections", ""],
    ["nats-operator-render-cluster", "list", "nats-operator.io", "natsconnections", ""],
    ["nats-operator-render-cluster", "delete", "", "services", ""],
    ["nats-operator-render-cluster", "delete", "", "secrets", ""],
    ["nats-operator-render-cluster", "list", "cert-manager.io", "certificates", ""],
    ["nats-operator-render-cluster", "patch", "cert-manager.io", "certificates", ""],
    ["nats-operator-render-cluster", "delete", "cert-manager.io", "certificates", ""],
    ["nats-operator-render-cluster", "get", "cert-manager.io", "issuers", ""],
    ["nats-operator-render-cluster", "get", "cert-manager.io", "clusterissuers", ""],
    ["nats-operator-step-rollout", "get", "policy", "poddisruptionbudgets", ""],
    ["nats-operator-step-rollout", "get", "networking.k8s.io", "networkpolicies", ""],
    ["nats-operator-step-rollout", "update", "cluster.nats-operator.io", "natsclusters", "status"],
    ["nats-operator-sync-stream", "patch", "jetstream.nats-operator.io", "natsstreams", "status"],
    ["nats-operator-sync-stream", "get", "", "secrets", ""],
    ["nats-operator-sync-stream", "create", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-sign-account", "create", "", "secrets", ""],
    ["nats-operator-sign-account", "update", "auth.nats-operator.io", "natsaccounts", "status"],
    ["nats-operator-sign-account", "update", "nats-operator.io", "natsoperatortrusts", "status"],
    ["nats-operator-sign-account", "update", "nats-operator.io", "natsaccounttrusts", "status"],
    ["nats-operator-sign-account", "patch", "auth.nats-operator.io", "natsusers", ""],
    ["nats-operator-sign-account", "patch", "auth.nats-operator.io", "natsaccounts", ""],
    ["nats-operator-sign-account", "get", "nats-operator.io", "natsconnections", ""],
    ["nats-operator-sign-account", "list", "nats-operator.io", "natsreferencegrants", ""],
    ["nats-operator-sign-account", "create", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natssystembalancers", "status"],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natsbalancers", "status"],
    ["nats-operator-balance", "get", "nats-operator.io", "natsconnections", ""],
    ["nats-operator-balance", "get", "", "secrets", ""],
    ["nats-operator-balance", "create", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natsclusterevacuations", "status"],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natsclusterevacuations", ""],
    ["nats-operator-balance", "list", "jetstream.nats-operator.io", "natskeyvalues", ""],
    ["nats-operator-balance", "list", "cluster.nats-operator.io", "natsclusters", ""],
    ["nats-operator-balance", "update", "coordination.k8s.io", "leases", ""],
  ])("lets %s %s %s/%s %s", async (account, verb, group, resource, subresource) => {
    expect(await allowed(account, verb, group, resource, subresource)).toBe(true);
  });

  it.each([
    ["nats-operator-source", "update", "cluster.nats-operator.io", "natsclusters"],
    ["nats-operator-sync-stream", "create", "", "secrets"],
    ["nats-operator-sync-stream", "delete", "apps", "statefulsets"],
    ["nats-operator-render-cluster", "delete", "", "persistentvolumeclaims"],
    ["nats-operator-render-cluster", "update", "nats-operator.io", "natsoperatortrusts"],
    ["nats-operator-render-cluster", "create", "cert-manager.io", "issuers"],
    ["nats-operator-render-cluster", "list", "cert-manager.io", "clusterissuers"],
    ["nats-operator-step-rollout", "patch", "nats-operator.io", "natsreferencegrants"],
    ["nats-operator-step-rollout", "create", "", "secrets"],
    ["nats-operator-sign-account", "delete", "", "secrets"],
    ["nats-operator-sign-account", "list", "", "secrets"],
    ["nats-operator-sign-account", "update", "auth.nats-operator.io", "natsaccounts"],
    ["nats-operator-sign-account", "update", "nats-operator.io", "natsoperatortrusts"],
    ["nats-operator-balance", "list", "", "secrets"],
    ["nats-operator-balance", "create", "", "secrets"],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natssystembalancers"],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natsstreams"],
    ["nats-operator-balance", "patch", "cluster.nats-operator.io", "natsclusters"],
    ["nats-operator-balance", "delete", "coordination.k8s.io", "leases"],
  ])("refuses %s %s %s/%s", async (account, verb, group, resource) => {
    expect(await allowed(account, verb, group, resource)).toBe(false);
  });
});
