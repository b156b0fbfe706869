// The RBAC in knative/rbac.yaml, installed on the real API server and asked
// through SubjectAccessReviews: each function may do what it needs and no more;
// the tenant roles, acted on as users bound to view, edit and admin; and the functions' sender
// check (oidc.verifyDeliveries) over the real TokenReview API.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse, parseAllDocuments, stringify } from "yaml";
import { knativeDir } from "../../../shared/local/manifests.ts";
import { KubeRequestError } from "../../../shared/kube/errors.ts";
import { apiServerTokenReviewer, senderCheck } from "../../../shared/runtime/sender-check.ts";
import { resourcePath, resourceTypeOf, type ResourceType } from "../../../shared/kube/resource-types.ts";
import { createTransport, type KubeTransport } from "../../../shared/kube/transport.ts";
import { ensureHelm } from "../../harness/binaries.ts";
import { repoRoot } from "../../harness/paths.ts";
import { waitFor } from "../../harness/wait.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";

let env: Environment;
const run = promisify(execFile);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** The cluster-scoped kinds of knative/rbac.yaml and knative/labelled-writes.yaml. */
const clusterScoped: Record<string, ResourceType> = {
  ClusterRole: { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterroles", namespaced: false },
  ClusterRoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    namespaced: false,
  },
  ValidatingAdmissionPolicy: {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicies",
    namespaced: false,
  },
  ValidatingAdmissionPolicyBinding: {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicybindings",
    namespaced: false,
  },
};

beforeAll(async () => {
  env = await startEnvironment();
  await env.transport.request("PATCH", "/api/v1/namespaces/nats-operator", {
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "nats-operator" } },
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: "rbac-test", force: true },
  });
  const text = (
    await Promise.all(["rbac.yaml", "labelled-writes.yaml"].map((f) => readFile(new URL(f, knativeDir), "utf8")))
  ).join("\n---\n");
  for (const doc of parseAllDocuments(text)) {
    const manifest = doc.toJS() as Manifest;
    const type = clusterScoped[manifest.kind] ?? resourceTypeOf(manifest.apiVersion, manifest.kind);
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
  namespace = "team-a",
  operatorNamespace = "nats-operator",
): Promise<boolean> {
  const review = (await env.transport.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: `system:serviceaccount:${operatorNamespace}:${serviceAccount}`,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${operatorNamespace}`, "system:authenticated"],
        resourceAttributes: { namespace, verb, group, resource, subresource },
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
    ["nats-operator-step-rollout", "list", "", "pods", ""],
    ["nats-operator-step-rollout", "list", "", "events", ""],
    ["nats-operator-step-rollout", "update", "cluster.nats-operator.io", "natsclusters", "status"],
    ["nats-operator-sync-stream", "patch", "jetstream.nats-operator.io", "natsstreams", "status"],
    ["nats-operator-sync-stream", "get", "", "secrets", ""],
    ["nats-operator-sync-stream", "create", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-sign-account", "create", "", "secrets", ""],
    // A creds Secret is emptied (its user's grant gone) and rewritten by update, read by name.
    ["nats-operator-sign-account", "update", "", "secrets", ""],
    ["nats-operator-sign-account", "get", "", "secrets", ""],
    // Each function claims its resync firing in its PingSource's annotation (resync-cap.ts).
    ["nats-operator-render-cluster", "patch", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-step-rollout", "patch", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-sync-stream", "patch", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-sign-account", "patch", "sources.knative.dev", "pingsources", ""],
    ["nats-operator-balance", "patch", "sources.knative.dev", "pingsources", ""],
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
    ["nats-operator-dead-letter", "get", "jetstream.nats-operator.io", "natsstreams", ""],
    ["nats-operator-dead-letter", "get", "sources.knative.dev", "pingsources", ""],
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
    ["nats-operator-step-rollout", "watch", "", "events"],
    ["nats-operator-render-cluster", "list", "", "events"],
    ["nats-operator-sign-account", "delete", "", "secrets"],
    ["nats-operator-sign-account", "patch", "", "secrets"],
    ["nats-operator-sign-account", "list", "", "secrets"],
    ["nats-operator-sign-account", "update", "auth.nats-operator.io", "natsaccounts"],
    ["nats-operator-sign-account", "update", "nats-operator.io", "natsoperatortrusts"],
    ["nats-operator-balance", "list", "", "secrets"],
    ["nats-operator-balance", "create", "", "secrets"],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natssystembalancers"],
    ["nats-operator-balance", "patch", "jetstream.nats-operator.io", "natsstreams"],
    ["nats-operator-balance", "patch", "cluster.nats-operator.io", "natsclusters"],
    ["nats-operator-balance", "delete", "coordination.k8s.io", "leases"],
    ["nats-operator-render-cluster", "list", "", "secrets"],
    ["nats-operator-render-cluster", "watch", "", "secrets"],
    ["nats-operator-dead-letter", "get", "", "secrets"],
    ["nats-operator-dead-letter", "update", "jetstream.nats-operator.io", "natsstreams"],
  ])("refuses %s %s %s/%s", async (account, verb, group, resource) => {
    expect(await allowed(account, verb, group, resource)).toBe(false);
  });

  // balance's move leases live in the operator's namespace (a Role there), so no other
  // namespace's Lease is its to write: not a team's, not kube-system's leader elections.
  it.each([
    ["nats-operator", "get", true],
    ["nats-operator", "create", true],
    ["nats-operator", "update", true],
    ["kube-system", "update", false],
    ["kube-system", "get", false],
    ["team-a", "create", false],
  ])("balance's Leases in %s: %s is allowed: %s", async (namespace, verb, expected) => {
    expect(await allowed("nats-operator-balance", verb, "coordination.k8s.io", "leases", "", namespace)).toBe(expected);
  });
});

/** A transport that acts as `user` (Impersonate-User), from the harness's admin kubeconfig. */
async function actingAs(user: string): Promise<KubeTransport> {
  const kubeconfig = process.env["KUBECONFIG"];
  if (kubeconfig === undefined) throw new Error("no KUBECONFIG");
  const config = parse(await readFile(kubeconfig, "utf8")) as { users: { user: Record<string, unknown> }[] };
  for (const entry of config.users) entry.user["as"] = user;
  const dir = await mkdtemp(join(tmpdir(), "rbac-test-"));
  const path = join(dir, "kubeconfig");
  await writeFile(path, stringify(config));
  return createTransport(path);
}

/** The HTTP status the API server answers `request` with; 200 for success. */
async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (error) {
    if (error instanceof KubeRequestError) return error.code;
    throw error;
  }
}

// Aggregated into Kubernetes' own view, edit and admin (docs/reference/rbac.md): a team bound to
// one of them in its namespace reads or manages the operator's kinds there with no RBAC of its own.
describe("the tenant roles aggregated into view, edit and admin", () => {
  let namespace: string;
  let editor: KubeTransport;
  let viewer: KubeTransport;
  let admin: KubeTransport;
  const stream = (name: string) => ({
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name },
    spec: { connectionRef: { name: "main" }, subjects: [`${name}.>`] },
  });
  const user = (name: string) => ({
    apiVersion: "auth.nats-operator.io/v1beta1",
    kind: "NatsUser",
    metadata: { name },
    spec: { accountRef: { kind: "NatsAccount", name: "team" } },
  });
  const grant = {
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsReferenceGrant",
    metadata: { name: "others" },
    spec: {
      from: [{ group: "auth.nats-operator.io", kind: "NatsAccount", namespace: "team-b" }],
      to: [{ group: "auth.nats-operator.io", kind: "NatsOperator" }],
    },
  };
  const path = (kind: "NatsStream" | "NatsUser" | "NatsReferenceGrant", name?: string) =>
    resourcePath(
      resourceTypeOf(
        kind === "NatsStream"
          ? "jetstream.nats-operator.io/v1beta1"
          : kind === "NatsUser"
            ? "auth.nats-operator.io/v1beta1"
            : "nats-operator.io/v1beta1",
        kind,
      ),
      namespace,
      name,
    );

  beforeAll(async () => {
    namespace = await env.namespace("tenant-roles");
    for (const [name, role] of [
      ["editor", "edit"],
      ["viewer", "view"],
      ["owner", "admin"],
    ] as const) {
      await env.transport.request("POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
        body: {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name }],
        },
      });
    }
    [editor, viewer, admin] = await Promise.all([actingAs("editor"), actingAs("viewer"), actingAs("owner")]);
    // The controller-manager's aggregation controller folds our rules into the built-in roles.
    await waitFor("the operator's kinds aggregated into view, edit and admin", async () => {
      const roles = await Promise.all(
        ["view", "edit", "admin"].map(
          (name) =>
            env.transport.request("GET", `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`) as Promise<{
              rules?: { resources?: string[]; verbs?: string[] }[];
            }>,
        ),
      );
      const has = (role: (typeof roles)[number], resource: string, verb: string) =>
        (role.rules ?? []).some((r) => r.resources?.includes(resource) && r.verbs?.includes(verb));
      const [view, edit, adminRole] = roles;
      return (
        view !== undefined &&
        edit !== undefined &&
        adminRole !== undefined &&
        has(view, "natsstreams", "list") &&
        has(edit, "natsusers", "create") &&
        has(adminRole, "natsreferencegrants", "create")
      );
    });
  }, 60_000);

  it("lets a user bound to edit create a NatsStream and a NatsUser in the namespace", async () => {
    expect(await statusOf(editor.request("POST", path("NatsStream"), { body: stream("orders") }))).toBe(200);
    expect(await statusOf(editor.request("POST", path("NatsUser"), { body: user("alice") }))).toBe(200);
    expect(await statusOf(editor.request("DELETE", path("NatsUser", "alice")))).toBe(200);
    expect(await statusOf(editor.request("POST", path("NatsUser"), { body: user("alice") }))).toBe(200);
  });

  it("lets a user bound to view read them and create nothing", async () => {
    const streams = (await viewer.request("GET", path("NatsStream"))) as { items: { metadata: { name: string } }[] };
    expect(streams.items.map((s) => s.metadata.name)).toEqual(["orders"]);
    expect(await statusOf(viewer.request("GET", path("NatsUser", "alice")))).toBe(200);
    expect(await statusOf(viewer.request("POST", path("NatsStream"), { body: stream("payments") }))).toBe(403);
    expect(await statusOf(viewer.request("POST", path("NatsUser"), { body: user("bob") }))).toBe(403);
    expect(await statusOf(viewer.request("DELETE", path("NatsStream", "orders")))).toBe(403);
  });

  it("keeps the grant of the namespace to others (NatsReferenceGrant) for admin, as RoleBindings are", async () => {
    expect(await statusOf(editor.request("POST", path("NatsReferenceGrant"), { body: grant }))).toBe(403);
    expect(await statusOf(admin.request("POST", path("NatsReferenceGrant"), { body: grant }))).toBe(200);
    expect(await statusOf(editor.request("GET", path("NatsReferenceGrant", "others")))).toBe(200);
  });
});

// RBAC cannot say "only objects we label"; knative/labelled-writes.yaml (a ValidatingAdmissionPolicy
// bound to render-cluster's and step-rollout's accounts) does, at admission.
describe("writes of render-cluster and step-rollout confined to objects labelled as the operator's", () => {
  let namespace: string;
  let renderCluster: KubeTransport;
  let stepRollout: KubeTransport;
  const ours = { "app.kubernetes.io/managed-by": "cluster-controller" };
  const configMap = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, labels },
    data: { k: "v" },
  });
  const service = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, labels },
    spec: { ports: [{ name: "client", port: 4222 }] },
  });
  const claim = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, labels },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  });
  const at = (kind: string, name?: string) => resourcePath(resourceTypeOf("v1", kind), namespace, name);
  const sa = (name: string) => `system:serviceaccount:nats-operator:nats-operator-${name}`;

  beforeAll(async () => {
    namespace = await env.namespace("labelled-writes");
    for (const [kind, object] of [
      ["ConfigMap", configMap("theirs")],
      ["ConfigMap", configMap("ours", ours)],
      ["Service", service("theirs")],
      ["Service", service("ours", ours)],
      ["PersistentVolumeClaim", claim("theirs")],
      ["PersistentVolumeClaim", claim("ours", ours)],
    ] as const) {
      await env.transport.request("POST", at(kind), { body: object });
    }
    [renderCluster, stepRollout] = await Promise.all([actingAs(sa("render-cluster")), actingAs(sa("step-rollout"))]);
    // A new policy takes effect once the API server has loaded it: wait for the first refusal.
    await waitFor("the labelled-writes policy in effect", async () => {
      const code = await statusOf(
        stepRollout.request("DELETE", at("ConfigMap", "theirs"), { query: { dryRun: "All" } }),
      );
      return code !== 200;
    });
  }, 60_000);

  it("refuses step-rollout deleting an unlabelled PVC or ConfigMap, and lets it delete labelled ones", async () => {
    expect(await statusOf(stepRollout.request("DELETE", at("PersistentVolumeClaim", "theirs")))).not.toBe(200);
    expect(await statusOf(stepRollout.request("DELETE", at("ConfigMap", "theirs")))).not.toBe(200);
    expect(await statusOf(stepRollout.request("DELETE", at("PersistentVolumeClaim", "ours")))).toBe(200);
    expect(await statusOf(stepRollout.request("DELETE", at("ConfigMap", "ours")))).toBe(200);
  });

  it("refuses render-cluster changing a Service without the label, or creating one without it", async () => {
    const merge = { contentType: "application/merge-patch+json", body: { metadata: { annotations: { a: "b" } } } };
    expect(await statusOf(renderCluster.request("PATCH", at("Service", "theirs"), merge))).not.toBe(200);
    expect(await statusOf(renderCluster.request("DELETE", at("Service", "theirs")))).not.toBe(200);
    expect(await statusOf(renderCluster.request("POST", at("Service"), { body: service("new") }))).not.toBe(200);
    expect(await statusOf(renderCluster.request("PATCH", at("Service", "ours"), merge))).toBe(200);
    expect(await statusOf(renderCluster.request("POST", at("Service"), { body: service("new", ours) }))).toBe(200);
  });

  it("refuses taking the label off an object of ours, and says why", async () => {
    const strip = {
      contentType: "application/merge-patch+json",
      body: { metadata: { labels: { "app.kubernetes.io/managed-by": null } } },
    };
    const refusal = await renderCluster.request("PATCH", at("Service", "ours"), strip).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(KubeRequestError);
    expect((refusal as Error).message).toMatch(
      /may write only objects labelled app.kubernetes.io\/managed-by=cluster-controller/,
    );
  });

  it("leaves other accounts alone: the namespace's own users write unlabelled objects as before", async () => {
    expect(await statusOf(env.transport.request("DELETE", at("Service", "theirs")))).toBe(200);
  });
});

/** Creates the namespace if it is not there yet. */
async function ensureNamespace(name: string): Promise<void> {
  await env.transport.request("PATCH", `/api/v1/namespaces/${name}`, {
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: "rbac-test", force: true },
  });
}

// The chart with watchNamespaces: [team-a], released into its own namespace: every account's
// ClusterRole is bound in team-a and the release namespace only, so nothing holds elsewhere.
describe("an installation confined by watchNamespaces", () => {
  const release = "confined-operator";

  beforeAll(async () => {
    const helm = await ensureHelm();
    const { stdout } = await run(helm, [
      "template",
      "nats-operator",
      join(repoRoot, "chart"),
      "--namespace",
      release,
      "--set",
      "watchNamespaces={team-a}",
      "--show-only",
      "templates/rbac.yaml",
    ]);
    for (const namespace of [release, "team-a"]) await ensureNamespace(namespace);
    for (const doc of parseAllDocuments(stdout)) {
      const manifest = doc.toJS() as Manifest | null;
      if (manifest === null) continue;
      const type = clusterScoped[manifest.kind] ?? resourceTypeOf(manifest.apiVersion, manifest.kind);
      await env.transport.request("PATCH", resourcePath(type, manifest.metadata.namespace, manifest.metadata.name), {
        body: manifest,
        contentType: "application/apply-patch+yaml",
        query: { fieldManager: "rbac-test", force: true },
      });
    }
  }, 10 * 60_000);

  it.each([
    ["nats-operator-source", "list", "", "secrets", "team-a", true],
    ["nats-operator-source", "list", "", "secrets", "team-b", false],
    ["nats-operator-source", "watch", "", "secrets", "", false],
    ["nats-operator-sign-account", "get", "", "secrets", "kube-system", false],
    ["nats-operator-render-cluster", "create", "apps", "statefulsets", "team-a", true],
    ["nats-operator-render-cluster", "create", "apps", "statefulsets", "team-b", false],
    ["nats-operator-sync-stream", "list", "jetstream.nats-operator.io", "natsstreams", "team-b", false],
    ["nats-operator-sync-stream", "list", "jetstream.nats-operator.io", "natsstreams", "", false],
    ["nats-operator-balance", "update", "coordination.k8s.io", "leases", release, true],
    ["nats-operator-balance", "update", "coordination.k8s.io", "leases", "kube-system", false],
  ])("%s %s %s/%s in %s: allowed %s", async (account, verb, group, resource, namespace, expected) => {
    expect(await allowed(account, verb, group, resource, "", namespace, release)).toBe(expected);
  });
});

// oidc.verifyDeliveries (docs/install.md, "Only the Broker's deliveries"): the sender check over the
// real TokenReview API, as a function's account bound by knative/oidc/token-review.yaml. Tokens are
// made as Knative's Broker filter makes them: a TokenRequest for the Trigger's OIDC account.
describe("the sender check against the API server's TokenReview", () => {
  const audience = "serving.knative.dev/service/nats-operator/render-cluster";
  const trigger = "render-cluster-oidc-eventing.knative.dev-trigger";
  let intruderNamespace: string;

  const apply = async (manifest: Manifest) => {
    const type = clusterScoped[manifest.kind] ?? resourceTypeOf(manifest.apiVersion, manifest.kind);
    await env.transport.request("PATCH", resourcePath(type, manifest.metadata.namespace, manifest.metadata.name), {
      body: manifest,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: "rbac-test", force: true },
    });
  };
  const serviceAccount = (namespace: string, name: string): Manifest => ({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace },
  });
  const tokenOf = async (namespace: string, name: string, forAudience: string): Promise<string> => {
    const answer = (await env.transport.request(
      "POST",
      `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
      {
        body: {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenRequest",
          spec: { audiences: [forAudience], expirationSeconds: 600 },
        },
      },
    )) as { status: { token: string } };
    return `Bearer ${answer.status.token}`;
  };
  const checkAs = (account: string) =>
    senderCheck({
      audience,
      subjects: [`system:serviceaccount:nats-operator:${trigger}`],
      review: apiServerTokenReviewer(() => actingAs(`system:serviceaccount:nats-operator:${account}`)),
    });

  beforeAll(async () => {
    const text = await readFile(new URL("oidc/token-review.yaml", knativeDir), "utf8");
    for (const doc of parseAllDocuments(text)) {
      const manifest = doc.toJS() as Manifest | null;
      if (manifest !== null) await apply(manifest);
    }
    intruderNamespace = await env.namespace("intruder");
    await apply(serviceAccount("nats-operator", trigger));
    await apply(serviceAccount(intruderNamespace, "default"));
  }, 60_000);

  it("accepts the Trigger's token for the function's audience", async () => {
    const verdict = await checkAs("nats-operator-render-cluster")(await tokenOf("nats-operator", trigger, audience));
    expect(verdict).toEqual({ kind: "accepted", username: `system:serviceaccount:nats-operator:${trigger}` });
  });

  it("refuses the Trigger's token made for another audience (the Broker filter's own)", async () => {
    const token = await tokenOf("nats-operator", trigger, "mt-broker-filter");
    expect((await checkAs("nats-operator-render-cluster")(token)).kind).toBe("unauthenticated");
  });

  it("refuses another namespace's account, even with a token for the function's audience", async () => {
    const token = await tokenOf(intruderNamespace, "default", audience);
    expect(await checkAs("nats-operator-render-cluster")(token)).toEqual({
      kind: "unauthenticated",
      reason: `sender system:serviceaccount:${intruderNamespace}:default is not accepted`,
    });
  });

  it("cannot review as an account without the token-review binding: unavailable, never accepted", async () => {
    const token = await tokenOf("nats-operator", trigger, audience);
    expect((await checkAs("nats-operator-source")(token)).kind).toBe("unavailable");
  });
});
