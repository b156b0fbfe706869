// The operator's own manifests (knative/*.yaml), installed on a harness that
// runs Knative Eventing but not Serving: each Knative Service becomes what
// Serving would run for it with one pod kept warm (a Deployment and a
// ClusterIP Service on port 80), and every reference to a Knative Service
// (Trigger subscribers, dead-letter sinks) names that Service instead. The
// Broker, Triggers, ApiServerSources, RBAC and the function pods themselves
// are unchanged, so every event goes ApiServerSource → Broker → Trigger →
// function pod over HTTP.
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments, stringify } from "yaml";
import { knativeDir } from "../../../../shared/local/manifests.ts";

const run = promisify(execFile);

export type Manifest = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};

const FILES = [
  "rbac.yaml",
  "labelled-writes.yaml",
  "broker.yaml",
  "services.yaml",
  "triggers.yaml",
  "apiserversources.yaml",
  "resync.yaml",
];
const SERVING = "serving.knative.dev/v1";

/**
 * Every object of knative/, with Knative Services turned into Deployments and Services, and the
 * resync PingSources on `resyncSchedule` when given (tests tick every minute).
 */
export async function operatorManifestsWithoutServing(resyncSchedule?: string): Promise<Manifest[]> {
  const out: Manifest[] = [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "nats-operator" } } as Manifest];
  for (const file of FILES) {
    const text = await readFile(new URL(file, knativeDir), "utf8");
    for (const doc of parseAllDocuments(text)) {
      const manifest = doc.toJS() as Manifest | null;
      if (manifest === null) continue;
      out.push(...withoutServing(manifest, resyncSchedule));
    }
  }
  return out;
}

/**
 * One manifest as it runs without Serving: a Knative Service becomes a Deployment and a Service,
 * references to one name the Service; PingSources tick on `resyncSchedule` when given.
 */
function withoutServing(manifest: Manifest, resyncSchedule?: string): Manifest[] {
  if (manifest.apiVersion === SERVING && manifest.kind === "Service") return asDeployment(manifest);
  if (manifest.kind === "PingSource" && resyncSchedule !== undefined)
    return [{ ...manifest, spec: { ...(manifest["spec"] as object), schedule: resyncSchedule } }];
  return [retargeted(manifest)];
}

interface PodTemplate {
  metadata?: { annotations?: Record<string, string> };
  spec: {
    containers: {
      name?: string;
      readinessProbe?: { httpGet?: { port?: number } };
      livenessProbe?: { httpGet?: { port?: number } };
    }[];
    containerConcurrency?: number;
    timeoutSeconds?: number;
  } & Record<string, unknown>;
}

function asDeployment(ksvc: Manifest): Manifest[] {
  const { name, namespace, labels } = ksvc.metadata;
  const template = structuredClone((ksvc["spec"] as { template: PodTemplate }).template);
  // Serving's own fields, and what it fills in: the container name and the probe port (8080).
  delete template.spec.containerConcurrency;
  delete template.spec.timeoutSeconds;
  for (const c of template.spec.containers) {
    c.name ??= "user-container";
    if (c.readinessProbe?.httpGet !== undefined) c.readinessProbe.httpGet.port = 8080;
    if (c.livenessProbe?.httpGet !== undefined) c.livenessProbe.httpGet.port = 8080;
  }
  const selector = { "app.kubernetes.io/name": name };
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
      spec: {
        replicas: 1,
        selector: { matchLabels: selector },
        template: { metadata: { labels: selector }, spec: template.spec },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
      spec: { selector, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
    },
  ];
}

/** The manifest with every `{apiVersion: serving.knative.dev/v1, kind: Service}` reference made `v1`. */
function retargeted(manifest: Manifest): Manifest {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== "object") return value;
    const record = value as Record<string, unknown>;
    if (record["apiVersion"] === SERVING && record["kind"] === "Service" && "name" in record)
      return { ...record, apiVersion: "v1" };
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, visit(v)]));
  };
  return visit(manifest) as Manifest;
}

/** Applies the manifests with the harness's kubectl (server-side). */
export async function installOperatorOnEventing(
  kubectl: string,
  kubeconfig: string,
  workDir: string,
  resyncSchedule?: string,
): Promise<void> {
  const file = join(workDir, "operator-on-eventing.yaml");
  await writeFile(file, (await operatorManifestsWithoutServing(resyncSchedule)).map((m) => stringify(m)).join("---\n"));
  await run(kubectl, [`--kubeconfig=${kubeconfig}`, "apply", "--server-side", "-f", file]);
}
