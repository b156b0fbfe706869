// Knative Serving on the harness, with Traefik as its networking layer: the
// manifests of knative.dev/serving (config/core), knative.dev/networking and
// knative.dev/caching, applied unchanged with the harness's kubectl, three
// settings put into Serving's ConfigMaps, and Traefik installed with its
// Knative provider. The kubelet runs every pod as the binaries built by
// test/infra/build-serving.sh (see kubelet/workloads.ts); a Knative Service's
// pod runs its container and the queue-proxy sidecar in one network namespace.
import { execFile } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { errorMessage, waitFor } from "./wait.ts";

const run = promisify(execFile);

/** The KIngress class Traefik's Knative provider answers to. */
export const TRAEFIK_INGRESS_CLASS = "traefik.ingress.networking.knative.dev";

/**
 * Settings the harness chooses, each a documented Serving option:
 * - Traefik is the ingress;
 * - idle revisions scale to zero after 10 s rather than about 90 s, so tests
 *   and the idle benchmark see scale-to-zero without waiting minutes (6 s is
 *   Serving's lowest stable window);
 * - images of the harness registry are not resolved to digests (there is no
 *   registry: the kubelet maps an image to a local program).
 */
export const SERVING_SETTINGS: Record<string, Record<string, string>> = {
  "config-network": { "ingress-class": TRAEFIK_INGRESS_CLASS },
  "config-autoscaler": { "stable-window": "10s", "scale-to-zero-grace-period": "10s" },
  "config-deployment": { "registries-skipping-tag-resolving": "kind.local,ko.local,dev.local,harness.local" },
};

/** Traefik with its (experimental) Knative provider, serving every KIngress on port 80 of the `traefik` Service. */
const TRAEFIK = `
apiVersion: v1
kind: Namespace
metadata: { name: traefik }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: traefik, namespace: traefik }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: traefik-knative }
rules:
  - { apiGroups: [""], resources: [services, secrets], verbs: [get, list, watch] }
  - { apiGroups: [networking.internal.knative.dev], resources: [ingresses], verbs: [get, list, watch] }
  - { apiGroups: [networking.internal.knative.dev], resources: [ingresses/status], verbs: [update] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: traefik-knative }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: traefik-knative }
subjects: [{ kind: ServiceAccount, name: traefik, namespace: traefik }]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: traefik, namespace: traefik }
spec:
  selector: { matchLabels: { app: traefik } }
  template:
    metadata: { labels: { app: traefik } }
    spec:
      serviceAccountName: traefik
      containers:
        - name: traefik
          image: traefik:v3.6.12
          args:
            - --experimental.knative=true
            - --providers.knative=true
            - --providers.knative.publicEntrypoints=web
            - --providers.knative.publicService.name=traefik
            - --providers.knative.publicService.namespace=traefik
            - --providers.knative.privateEntrypoints=web
            - --providers.knative.privateService.name=traefik
            - --providers.knative.privateService.namespace=traefik
            - --entryPoints.web.address=:8080
            - --entryPoints.traefik.address=:9000
            - --ping=true
            - --log.level=INFO
          env:
            # The pod has no service-account token file, so Traefik must not
            # take the in-cluster path; the kubelet gives it KUBECONFIG instead.
            - { name: KUBERNETES_SERVICE_HOST, value: "" }
          ports:
            - { name: web, containerPort: 8080 }
            - { name: traefik, containerPort: 9000 }
          readinessProbe:
            httpGet: { path: /ping, port: 9000 }
---
apiVersion: v1
kind: Service
metadata: { name: traefik, namespace: traefik }
spec:
  selector: { app: traefik }
  ports:
    - { name: http, port: 80, targetPort: web }
`;

export async function installKnativeServing(options: {
  kubectl: string;
  kubeconfig: string;
  servingDir: string;
  workDir: string;
  log: (line: string) => void;
  timeoutMs: number;
}): Promise<void> {
  const { kubectl, kubeconfig, servingDir, log } = options;
  const deadline = Date.now() + options.timeoutMs;
  const kube = (...args: string[]): Promise<{ stdout: string }> =>
    run(kubectl, [`--kubeconfig=${kubeconfig}`, ...args], { maxBuffer: 16 * 1024 * 1024 });
  const config = (part: string): string => join(servingDir, "config", part);
  const networking = (await readdir(config("networking"))).filter((f) => f.endsWith(".yaml"));
  const networkingCrds = networking.filter((f) => f !== "config-network.yaml");

  await kube(
    "apply",
    "--server-side",
    "--force-conflicts",
    ...networkingCrds.flatMap((f) => ["-f", join(config("networking"), f)]),
    "-f",
    config("caching"),
    "-f",
    config("core/300-resources"),
  );
  await kube("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s");
  await kube("apply", "--server-side", "-f", config("core/100-namespace.yaml"));
  const traefik = join(options.workDir, "traefik.yaml");
  await writeFile(traefik, TRAEFIK);
  const files = ["-R", "-f", config("core"), "-f", join(config("networking"), "config-network.yaml"), "-f", traefik];
  // Objects that need another to exist first (a RoleBinding's namespace, a
  // webhook's Service) succeed on a later pass.
  await waitFor(
    "Knative Serving applied",
    async () => {
      try {
        await kube("apply", "--server-side", "--force-conflicts", ...files);
        return true;
      } catch (err) {
        log(`serving: apply not complete yet: ${errorMessage(err).split("\n").slice(-3).join(" ")}`);
        return false;
      }
    },
    { timeoutMs: Math.max(1_000, deadline - Date.now()), intervalMs: 2_000 },
  );
  log("serving: manifests applied; waiting for its Deployments and Traefik");
  for (const namespace of ["knative-serving", "traefik"]) {
    const seconds = Math.max(1, Math.round((deadline - Date.now()) / 1000));
    await kube("wait", "--for=condition=Available", "deployment", "--all", "-n", namespace, `--timeout=${seconds}s`);
  }
  // Serving's webhook validates its ConfigMaps, so they change once it runs.
  for (const [name, data] of Object.entries(SERVING_SETTINGS))
    await waitFor(
      `${name} set`,
      async () => {
        try {
          await kube(
            "patch",
            "configmap",
            name,
            "-n",
            "knative-serving",
            "--type=merge",
            "-p",
            JSON.stringify({ data }),
          );
          return true;
        } catch (err) {
          log(`serving: ${name} not set yet: ${errorMessage(err).split("\n").slice(-2).join(" ")}`);
          return false;
        }
      },
      { timeoutMs: Math.max(1_000, deadline - Date.now()), intervalMs: 2_000 },
    );
}
