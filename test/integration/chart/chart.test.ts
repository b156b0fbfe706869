// The Helm chart (chart/), with the helm CLI the harness builds (test/infra/build-helm.sh). No
// cluster is needed: `helm lint` and `helm template` only. The drift check keeps the chart and
// knative/ equal, so the two install paths can never disagree.
import { beforeAll, describe, expect, it } from "@jest/globals";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ensureHelm } from "../../harness/binaries.ts";
import { repoRoot } from "../../harness/paths.ts";

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

interface ServiceSpec {
  template: {
    metadata: { annotations: Record<string, string> };
    spec: {
      containerConcurrency: number;
      timeoutSeconds: number;
      imagePullSecrets?: { name: string }[];
      nodeSelector?: Record<string, string>;
      tolerations?: unknown[];
      affinity?: unknown;
      containers: { image: string; imagePullPolicy?: string; env: EnvVar[]; resources?: unknown }[];
    };
  };
}

const chartDir = join(repoRoot, "chart");
const allOptions = join(repoRoot, "test", "integration", "chart", "all-options.yaml");
/** The files the default install applies (knative/oidc/event-policy.yaml is optional). */
const knativeFiles = [
  "rbac.yaml",
  "labelled-writes.yaml",
  "broker.yaml",
  "services.yaml",
  "triggers.yaml",
  "apiserversources.yaml",
  "resync.yaml",
  "pod-template-policy.yaml",
];
const functionNames = ["render-cluster", "step-rollout", "sign-account", "sync-stream", "balance", "dead-letter"];

let helm: string;
// helm keeps its config, cache and data here rather than in $HOME.
const helmHome = mkdtempSync(join(tmpdir(), "nats-operator-helm-"));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      helm,
      args,
      {
        cwd: repoRoot,
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: helmHome,
          HELM_CACHE_HOME: join(helmHome, "cache"),
          HELM_CONFIG_HOME: join(helmHome, "config"),
          HELM_DATA_HOME: join(helmHome, "data"),
          KUBECONFIG: join(helmHome, "no-kubeconfig"),
        },
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

function parse(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** `helm template` of the chart, parsed; fails the test on a non-zero exit. */
async function template(args: string[] = [], namespace = "nats-operator"): Promise<Manifest[]> {
  // The `helm test` hook objects are checked on their own (below).
  const result = await run(["template", "nats-operator", chartDir, "--namespace", namespace, "--skip-tests", ...args]);
  if (result.code !== 0) throw new Error(`helm template ${args.join(" ")} failed:\n${result.stderr}`);
  return parse(result.stdout);
}

const key = (m: Manifest): string => `${m.kind}/${m.metadata.namespace ?? ""}/${m.metadata.name}`;
const byKey = (all: Manifest[]): Map<string, Manifest> => new Map(all.map((m) => [key(m), m]));

function knativeManifests(files: string[]): Manifest[] {
  return files.flatMap((f) => parse(readFileSync(join(repoRoot, "knative", f), "utf8")));
}

/** The image knative/services.yaml names, as chart values. */
function knativeImage(): { repository: string; tag: string } {
  const images = new Set(
    knativeManifests(["services.yaml"]).flatMap((s) =>
      (s.spec as unknown as ServiceSpec).template.spec.containers.map((c) => c.image),
    ),
  );
  expect(images.size).toBe(1);
  const [image] = [...images];
  const match = /^(.+):([^:/@]+)$/.exec(image ?? "");
  if (!match?.[1] || !match[2]) throw new Error(`knative/services.yaml: image ${image} has no tag`);
  return { repository: match[1], tag: match[2] };
}

const service = (all: Manifest[], name: string): ServiceSpec => {
  const found = all.find((m) => m.kind === "Service" && m.apiVersion.startsWith("serving.") && m.metadata.name === name);
  if (!found) throw new Error(`no Knative Service ${name}`);
  return found.spec as unknown as ServiceSpec;
};
const envOf = (all: Manifest[], name: string): EnvVar[] => service(all, name).template.spec.containers[0]?.env ?? [];

beforeAll(async () => {
  helm = await ensureHelm();
}, 30 * 60_000);

describe("helm lint", () => {
  it("passes strict lint with the default values", async () => {
    const result = await run(["lint", "--strict", chartDir]);
    expect([result.code, result.stdout + result.stderr]).toEqual([0, expect.stringContaining("0 chart(s) failed")]);
    expect(result.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it("passes strict lint with every option set", async () => {
    const result = await run(["lint", "--strict", chartDir, "-f", allOptions]);
    expect([result.code, result.stdout + result.stderr]).toEqual([0, expect.stringContaining("0 chart(s) failed")]);
  });
});

describe("the chart and knative/", () => {
  it("render the same objects with the default values (the image aside)", async () => {
    const { repository, tag } = knativeImage();
    const rendered = byKey(await template(["--set", `image.repository=${repository}`, "--set", `image.tag=${tag}`]));
    const knative = byKey(knativeManifests(knativeFiles));
    expect([...rendered.keys()].sort()).toEqual([...knative.keys()].sort());
    for (const [k, manifest] of knative) expect([k, rendered.get(k)]).toEqual([k, manifest]);
  });

  it("render the same EventPolicy when oidc.eventPolicy is enabled", async () => {
    const rendered = (await template(["--set", "oidc.eventPolicy.enabled=true"])).filter(
      (m) => m.kind === "EventPolicy",
    );
    expect(rendered).toEqual(knativeManifests(["oidc/event-policy.yaml"]));
  });

  it("render the same token-review RBAC when oidc.verifyDeliveries is on", async () => {
    const rendered = (await template(["--set", "oidc.verifyDeliveries=true"])).filter((m) =>
      m.metadata.name.startsWith("nats-operator-token-review"),
    );
    expect(rendered).toEqual(knativeManifests(["oidc/token-review.yaml"]));
  });

  it("leave the podTemplate policy unbound, and nothing else changed, when cluster.allowUnrestrictedPodTemplate is set", async () => {
    const all = byKey(await template());
    const unrestricted = byKey(await template(["--set", "cluster.allowUnrestrictedPodTemplate=true"]));
    expect([...all.keys()].filter((k) => !unrestricted.has(k))).toEqual([
      "ValidatingAdmissionPolicyBinding//nats-operator-pod-template",
    ]);
    expect(unrestricted.get("ValidatingAdmissionPolicy//nats-operator-pod-template")).toBeDefined();
    expect([...unrestricted.keys()].filter((k) => !all.has(k))).toEqual([]);
  });

  it("render the same NetworkPolicy when networkPolicy is enabled", async () => {
    const rendered = (await template(["--set", "networkPolicy.enabled=true"])).filter((m) => m.kind === "NetworkPolicy");
    expect(rendered).toEqual(knativeManifests(["network-policy.yaml"]));
  });

  it("ship the CRDs of crds/", async () => {
    const result = await run(["show", "crds", chartDir]);
    expect(result.code).toBe(0);
    const crds = parse(result.stdout).map((m) => m.metadata.name);
    const generated = readdirSync(join(repoRoot, "crds")).flatMap((f) =>
      parse(readFileSync(join(repoRoot, "crds", f), "utf8")).map((m) => m.metadata.name),
    );
    expect(crds.sort()).toEqual(generated.sort());
    expect(crds).toHaveLength(16);
  });
});

describe("the image", () => {
  it("defaults to the chart's appVersion, which is the package version, never latest", async () => {
    const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8"))[0] as unknown as {
      appVersion: string;
      annotations: Record<string, string>;
    };
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string; license: string };
    expect(chart.appVersion).toBe(pkg.version);
    expect(chart.annotations["artifacthub.io/license"]).toBe(pkg.license);
    const all = await template();
    for (const name of ["render-cluster", "nats-operator-dead-letter"]) {
      expect(service(all, name).template.spec.containers[0]?.image).toBe(
        `ghcr.io/nats-operator/nats-operator:${pkg.version}`,
      );
    }
  });

  it("is repository:tag@digest when a digest is given", async () => {
    const digest = `sha256:${"ab".repeat(32)}`;
    const all = await template(["--set", `image.digest=${digest}`, "--set", "image.tag=1.2.3"]);
    expect(service(all, "balance").template.spec.containers[0]?.image).toBe(
      `ghcr.io/nats-operator/nats-operator:1.2.3@${digest}`,
    );
  });
});

describe("a values file enabling every option", () => {
  let all: Manifest[];
  beforeAll(async () => {
    all = await template(["-f", allOptions], "nats-system");
  });

  it("renders the image, pull settings and scheduling on the Services", () => {
    const spec = service(all, "render-cluster").template.spec;
    expect(spec.containers[0]?.image).toBe(
      "registry.example.com/nats/nats-operator:0.1.0-rc.1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    );
    expect(spec.containers[0]?.imagePullPolicy).toBe("IfNotPresent");
    expect(spec.imagePullSecrets).toEqual([{ name: "registry-pull" }]);
    expect(spec.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
    expect(spec.tolerations).toEqual([{ key: "dedicated", operator: "Equal", value: "operators", effect: "NoSchedule" }]);
    expect(spec.affinity).toMatchObject({ nodeAffinity: expect.anything() });
    expect(spec.containers[0]?.resources).toEqual({
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { cpu: "1", memory: "512Mi" },
    });
    expect([spec.containerConcurrency, spec.timeoutSeconds]).toEqual([50, 300]);
    expect(service(all, "render-cluster").template.metadata.annotations).toEqual({
      "autoscaling.knative.dev/min-scale": "1",
      "autoscaling.knative.dev/max-scale": "10",
      "autoscaling.knative.dev/target": "50",
      "autoscaling.knative.dev/initial-scale": "2",
      "autoscaling.knative.dev/scale-to-zero-pod-retention-period": "90s",
    });
    expect(service(all, "nats-operator-dead-letter").template.metadata.annotations).toMatchObject({
      "autoscaling.knative.dev/target": "5",
    });
  });

  it("sets the functions' env: settings, telemetry, the Broker's namespace and extra env", () => {
    const env = envOf(all, "render-cluster");
    expect(env).toEqual(
      expect.arrayContaining([
        { name: "FUNCTIONS", value: "render-cluster" },
        { name: "NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS", value: "true" },
        { name: "BROKER_NAMESPACE", value: "nats-system" },
        { name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "http://otel-collector.observability:4318" },
        { name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", value: "http://otel-collector.observability:4318/v1/traces" },
        { name: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", value: "http://otel-collector.observability:4318/v1/metrics" },
        { name: "OTEL_EXPORTER_OTLP_PROTOCOL", value: "http/protobuf" },
        { name: "OTEL_TRACES_EXPORTER", value: "otlp" },
        { name: "OTEL_METRICS_EXPORTER", value: "otlp" },
        { name: "OTEL_TRACES_SAMPLER", value: "parentbased_traceidratio" },
        { name: "OTEL_TRACES_SAMPLER_ARG", value: "0.25" },
        { name: "OTEL_RESOURCE_ATTRIBUTES", value: "deployment.environment=test" },
        { name: "OTEL_EXPORTER_OTLP_HEADERS", valueFrom: { secretKeyRef: { name: "otel-auth", key: "headers" } } },
        { name: "LOG_LEVEL", value: "debug" },
        { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "some-secret", key: "value", optional: true } } },
      ]),
    );
    // step-rollout judges the same listeners as render-cluster: both get the gateway setting.
    expect(envOf(all, "step-rollout")).toContainEqual({ name: "NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS", value: "true" });
    expect(envOf(all, "sign-account")).not.toContainEqual(expect.objectContaining({ name: "NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS" }));
    expect(envOf(all, "sign-account")).toContainEqual({ name: "NATS_OPERATOR_SYSTEM_CONNECTION", value: "nats-system/sys" });
    for (const name of ["render-cluster", "step-rollout", "sign-account", "nats-operator-dead-letter"]) {
      const names = envOf(all, name).map((e) => e.name);
      expect([name, new Set(names).size]).toEqual([name, names.length]);
    }
  });

  it("renders a PodMonitor for the exporter of every NATS server the operator runs", () => {
    const monitor = all.find((m) => m.kind === "PodMonitor");
    expect(monitor?.metadata.labels).toMatchObject({ release: "kube-prometheus" });
    expect(monitor?.spec).toEqual({
      namespaceSelector: { any: true },
      selector: { matchLabels: { "app.kubernetes.io/name": "nats", "app.kubernetes.io/managed-by": "cluster-controller" } },
      podTargetLabels: ["cluster.nats-operator.io/cluster", "cluster.nats-operator.io/server"],
      podMetricsEndpoints: [{ port: "metrics", path: "/metrics", interval: "15s" }],
    });
  });

  it("renders a PrometheusRule whose groups are files/prometheus-rules.yaml, the file promtool tests", () => {
    const rule = all.find((m) => m.kind === "PrometheusRule");
    expect([rule?.metadata.namespace, rule?.metadata.labels]).toEqual([
      "nats-system",
      { "app.kubernetes.io/part-of": "nats-operator", release: "kube-prometheus" },
    ]);
    expect(rule?.spec).toEqual(parse(readFileSync(join(chartDir, "files", "prometheus-rules.yaml"), "utf8"))[0]);
  });

  it("renders the kube-state-metrics configuration, files/kube-state-metrics.yaml, where kube-state-metrics runs, and binds its ServiceAccount", () => {
    const config = all.find((m) => m.kind === "ConfigMap" && m.metadata.name === "nats-operator-kube-state-metrics") as
      | (Manifest & { data?: Record<string, string> })
      | undefined;
    expect([config?.metadata.namespace, config?.metadata.labels]).toEqual([
      "monitoring",
      { "app.kubernetes.io/part-of": "nats-operator", release: "kube-prometheus" },
    ]);
    expect(config?.data?.["config.yaml"]).toBe(readFileSync(join(chartDir, "files", "kube-state-metrics.yaml"), "utf8"));
    const binding = all.find((m) => m.kind === "ClusterRoleBinding" && m.metadata.name === "nats-operator-kube-state-metrics");
    expect((binding as unknown as { subjects: unknown[] } | undefined)?.subjects).toEqual([
      { kind: "ServiceAccount", name: "kube-state-metrics", namespace: "monitoring" },
    ]);
  });

  it("renders the schedule, the Broker class, the EventPolicy and the NetworkPolicy in the release namespace", () => {
    const pings = all.filter((m) => m.kind === "PingSource");
    expect(pings.map((p) => p.metadata.name).sort()).toEqual(["render-cluster-resync", "sign-account-resync", "step-rollout-resync"]);
    for (const p of pings) expect([p.metadata.namespace, p.spec?.["schedule"]]).toEqual(["nats-system", "*/30 * * * *"]);
    const broker = all.find((m) => m.kind === "Broker");
    expect(broker?.metadata.annotations?.["eventing.knative.dev/broker.class"]).toBe("Kafka");
    expect(broker?.spec?.["config"]).toMatchObject({ kind: "ConfigMap", name: "kafka-broker-config" });
    for (const t of all.filter((m) => m.kind === "Trigger"))
      expect(t.metadata.annotations?.["kafka.eventing.knative.dev/delivery.order"]).toBe("ordered");
    const policy = all.find((m) => m.kind === "EventPolicy");
    expect(policy?.spec?.["from"]).toEqual([
      { sub: "system:serviceaccount:nats-system:*" },
      { sub: "system:serviceaccount:team-a:*" },
      { sub: "system:serviceaccount:team-b:*" },
    ]);
    const networkPolicy = all.find((m) => m.kind === "NetworkPolicy");
    expect(networkPolicy?.spec?.["ingress"]).toEqual([
      {
        from: [
          { podSelector: {} },
          {
            namespaceSelector: {
              matchExpressions: [
                { key: "kubernetes.io/metadata.name", operator: "In", values: ["knative-serving", "knative-eventing", "istio-system"] },
              ],
            },
          },
        ],
      },
    ]);
    // watchNamespaces [team-a, team-b]: the functions' roles are bound in those and the release namespace.
    // kube-state-metrics' ConfigMap and binding go where it runs (metrics.kubeStateMetrics.namespace, above).
    const ours = all.filter((m) => m.metadata.name !== "nats-operator-kube-state-metrics");
    for (const m of ours) {
      const expected = m.kind === "RoleBinding" ? ["team-a", "team-b", "nats-system"] : ["nats-system"];
      if (m.metadata.namespace !== undefined) expect([key(m), expected]).toEqual([key(m), expect.arrayContaining([m.metadata.namespace])]);
    }
    const bindings = ours.filter((m) => m.kind.endsWith("RoleBinding")) as unknown as { subjects: { namespace: string }[] }[];
    expect(bindings.length).toBeGreaterThan(0);
    // The token review's binding names every function's account; each other binding, one.
    for (const b of bindings) expect([...new Set(b.subjects.map((s) => s.namespace))]).toEqual(["nats-system"]);
  });
});

describe("the production profile (chart/values-production.yaml)", () => {
  const profile = join(chartDir, "values-production.yaml");
  let all: Manifest[];
  beforeAll(async () => {
    all = await template(["-f", profile]);
  });

  it("passes strict lint", async () => {
    const result = await run(["lint", "--strict", chartDir, "-f", profile]);
    expect([result.code, result.stdout + result.stderr]).toEqual([0, expect.stringContaining("0 chart(s) failed")]);
  });

  it("makes the Broker a Kafka Broker reading kafka-broker-config", () => {
    const broker = all.find((m) => m.kind === "Broker");
    expect(broker?.metadata.annotations?.["eventing.knative.dev/broker.class"]).toBe("Kafka");
    expect(broker?.spec?.["config"]).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "kafka-broker-config",
      namespace: "knative-eventing",
    });
  });

  it("delivers every Trigger's events unordered", () => {
    const triggers = all.filter((m) => m.kind === "Trigger");
    expect(triggers).toHaveLength(5);
    for (const t of triggers)
      expect([t.metadata.name, t.metadata.annotations]).toEqual([
        t.metadata.name,
        { "kafka.eventing.knative.dev/delivery.order": "unordered" },
      ]);
  });

  it("keeps each function's pod a while after its last event, and starts one with each revision", () => {
    const services = all.filter((m) => m.kind === "Service" && m.apiVersion === "serving.knative.dev/v1");
    const annotations = new Map(
      services.map((s) => [s.metadata.name, (s.spec as unknown as ServiceSpec).template.metadata.annotations]),
    );
    expect(annotations.get("step-rollout")).toMatchObject({
      "autoscaling.knative.dev/min-scale": "0",
      "autoscaling.knative.dev/initial-scale": "1",
      "autoscaling.knative.dev/scale-to-zero-pod-retention-period": "5m",
    });
    expect(annotations.get("render-cluster")?.["autoscaling.knative.dev/scale-to-zero-pod-retention-period"]).toBe("2m");
    expect(annotations.get("nats-operator-dead-letter")?.["autoscaling.knative.dev/scale-to-zero-pod-retention-period"]).toBeUndefined();
  });

  it("changes only the Broker, the Triggers and the Services against the defaults", async () => {
    const defaults = byKey(await template());
    const production = byKey(all);
    expect([...production.keys()].sort()).toEqual([...defaults.keys()].sort());
    const changed = [...production.keys()].filter((k) => JSON.stringify(production.get(k)) !== JSON.stringify(defaults.get(k)));
    for (const k of changed) expect(k).toMatch(/^(Broker|Trigger|Service)\//);
  });
});

describe("values.schema.json on the production settings", () => {
  it("refuses a delivery order Kafka does not know", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "broker.deliveryOrder=fifo"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/deliveryOrder/);
  });

  it("refuses a Broker config that names no object", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "broker.config.kind=ConfigMap"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/config/);
  });
});

describe("NOTES.txt", () => {
  it("says what to apply next, how to upgrade the CRDs, and what uninstall keeps", async () => {
    const result = await run(["install", "nats-operator", chartDir, "-n", "nats-operator", "--dry-run=client"]);
    expect(result.code).toBe(0);
    const notes = result.stdout.slice(result.stdout.indexOf("NOTES:"));
    expect(notes).toContain("kubectl -n nats-operator get broker,triggers,apiserversources,pingsources,ksvc");
    expect(notes).toContain("kubectl apply --server-side --force-conflicts -f <chart>/crds/");
    expect(notes).toMatch(/helm uninstall nats-operator -n nats-operator[^]*keeps the CRDs and every object of\s+yours/);
  });
});

describe("helm test", () => {
  it("is a hook Pod that checks every enabled function, with a script node accepts", async () => {
    const result = await run(["template", "nats-operator", chartDir, "-n", "nats-operator", "--set", "functions.balance.enabled=false"]);
    expect(result.code).toBe(0);
    const hooks = parse(result.stdout).filter((m) => m.metadata.annotations?.["helm.sh/hook"] === "test");
    expect(hooks.map((m) => m.kind).sort()).toEqual(["Pod", "Role", "RoleBinding", "ServiceAccount"]);
    const pod = hooks.find((m) => m.kind === "Pod") as unknown as {
      spec: { containers: { image: string; args: string[]; env: EnvVar[] }[] };
    };
    const container = pod.spec.containers[0];
    expect(container?.env).toEqual(
      expect.arrayContaining([
        { name: "SERVICES", value: "render-cluster step-rollout sign-account sync-stream nats-operator-dead-letter" },
        { name: "TRIGGERS", value: "render-cluster step-rollout sign-account sync-stream" },
      ]),
    );
    const script = join(helmHome, "helm-test.mjs");
    writeFileSync(script, container?.args[0] ?? "");
    const check = spawnSync(process.execPath, ["--check", script], { encoding: "utf8" });
    expect([check.status, check.stderr]).toEqual([0, ""]);
  });
});

describe("oidc.verifyDeliveries", () => {
  interface Destination {
    ref?: { name: string };
    audience?: string;
  }
  const triggersOf = (all: Manifest[]) => all.filter((m) => m.kind === "Trigger");
  const subscriberOf = (t: Manifest) => t.spec?.["subscriber"] as Destination;
  const deadLetterOf = (m: Manifest) => (m.spec?.["delivery"] as { deadLetterSink?: Destination }).deadLetterSink;
  const envValue = (all: Manifest[], service: string, name: string) =>
    envOf(all, service).find((e) => e.name === name)?.value;

  it("is off by default: no audience on any Trigger, no check on any Service", async () => {
    const all = await template();
    for (const t of triggersOf(all)) expect([t.metadata.name, subscriberOf(t).audience]).toEqual([t.metadata.name, undefined]);
    for (const name of ["render-cluster", "nats-operator-dead-letter"])
      expect(envOf(all, name).map((e) => e.name)).not.toContain("NATS_OPERATOR_OIDC_AUDIENCE");
  });

  it("has each Trigger ask tokens for the audience its Service checks, from the identity the Service accepts", async () => {
    const all = await template(["--set", "oidc.verifyDeliveries=true"], "ops");
    const triggers = triggersOf(all);
    expect(triggers).toHaveLength(5);
    const deadLetterSenders = envValue(all, "nats-operator-dead-letter", "NATS_OPERATOR_OIDC_SUBJECTS")?.split(",");
    for (const t of triggers) {
      const subscriber = subscriberOf(t);
      const service = subscriber.ref?.name ?? "";
      const identity = `system:serviceaccount:ops:${t.metadata.name}-oidc-eventing.knative.dev-trigger`;
      expect(subscriber.audience).toBe(`serving.knative.dev/service/ops/${service}`);
      expect(envValue(all, service, "NATS_OPERATOR_OIDC_AUDIENCE")).toBe(subscriber.audience);
      expect(envValue(all, service, "NATS_OPERATOR_OIDC_SUBJECTS")).toBe(identity);
      // What a Trigger cannot deliver goes to dead-letter with the Trigger's token.
      expect(deadLetterOf(t)?.audience).toBe(envValue(all, "nats-operator-dead-letter", "NATS_OPERATOR_OIDC_AUDIENCE"));
      expect(deadLetterSenders).toContain(identity);
    }
    expect(deadLetterSenders).toHaveLength(5);
  });

  it("accepts only enabled functions' Triggers and binds the token review to enabled functions only", async () => {
    const all = await template(["--set", "oidc.verifyDeliveries=true", "--set", "functions.balance.enabled=false"]);
    expect(envValue(all, "nats-operator-dead-letter", "NATS_OPERATOR_OIDC_SUBJECTS")).not.toMatch(/balance/);
    const binding = all.find((m) => m.kind === "ClusterRoleBinding" && m.metadata.name === "nats-operator-token-review");
    const subjects = (binding as unknown as { subjects: { name: string }[] }).subjects.map((s) => s.name);
    expect(subjects).toHaveLength(5);
    expect(subjects).not.toContain("nats-operator-balance");
  });
});

describe("docs/install.md", () => {
  /** Leaf paths of values.yaml, each function's under `functions.<name>`; Kubernetes objects (resources) whole. */
  const leaves = (value: unknown, path: string[] = []): string[] =>
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    path.at(-1) !== "resources"
      ? Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, path.length === 1 && path[0] === "functions" ? "<name>" : k]))
      : [path.join(".")];

  it("documents every value of values.yaml", () => {
    const values = parse(readFileSync(join(chartDir, "values.yaml"), "utf8"))[0];
    const doc = readFileSync(join(repoRoot, "docs", "install.md"), "utf8");
    const undocumented = [...new Set(leaves(values))].filter((p) => {
      const parent = p.slice(0, p.lastIndexOf("."));
      const last = p.slice(p.lastIndexOf(".") + 1);
      return !doc.includes(`\`${p}\``) && !(doc.includes(`\`${parent}.`) && doc.includes(`\`.${last}\``));
    });
    expect(undocumented).toEqual([]);
  });
});

describe("values.schema.json", () => {
  it("refuses an unknown key", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "functions.balance.replicas=2"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(result.stderr).toMatch(/additional properties? 'replicas' not allowed/);
  });

  it("refuses an unknown top-level key", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "replicaCount=2"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/additional properties? 'replicaCount' not allowed/);
  });

  it("refuses a wrong type", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "functions.step-rollout.timeoutSeconds=soon"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(result.stderr).toMatch(/timeoutSeconds.*got string, want integer/s);
  });

  it("refuses a malformed digest", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "image.digest=latest"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/digest/);
  });
});

describe("functions.<name>.enabled: false", () => {
  const removed = (fn: string): string[] => {
    const serviceName = fn === "dead-letter" ? "nats-operator-dead-letter" : fn;
    const keys = [
      `Service/nats-operator/${serviceName}`,
      `ServiceAccount/nats-operator/nats-operator-${fn}`,
      `ClusterRole//nats-operator-${fn}`,
      `ClusterRoleBinding//nats-operator-${fn}`,
    ];
    if (fn !== "dead-letter") keys.push(`Trigger/nats-operator/${fn}`, `PingSource/nats-operator/${fn}-resync`);
    // balance's move leases: a Role in the operator's namespace.
    if (fn === "balance")
      keys.push(`Role/nats-operator/nats-operator-${fn}-leases`, `RoleBinding/nats-operator/nats-operator-${fn}-leases`);
    return keys.sort();
  };

  it.each(functionNames)("removes %s's Service, Trigger, RBAC and resync PingSource, and nothing else", async (fn) => {
    const all = byKey(await template());
    const without = byKey(await template(["--set", `functions.${fn}.enabled=false`]));
    expect([...all.keys()].filter((k) => !without.has(k)).sort()).toEqual(removed(fn));
    expect([...without.keys()].filter((k) => !all.has(k))).toEqual([]);
    // Whatever refers to a removed object changes too; everything else is untouched.
    const changed = [...without.keys()].filter((k) => JSON.stringify(without.get(k)) !== JSON.stringify(all.get(k)));
    if (fn === "dead-letter") {
      for (const k of changed) expect(k).toMatch(/^(Broker|Trigger)\//);
      for (const m of without.values())
        expect([key(m), JSON.stringify(m)]).toEqual([key(m), expect.not.stringContaining("nats-operator-dead-letter")]);
    } else {
      expect(changed).toEqual([]);
    }
  });

  it("removes the Secrets source, and the sources' read of Secrets, only with render-cluster and sign-account both", async () => {
    const all = byKey(await template());
    const without = byKey(
      await template(["--set", "functions.render-cluster.enabled=false", "--set", "functions.sign-account.enabled=false"]),
    );
    expect([...all.keys()].filter((k) => !without.has(k)).sort()).toEqual(
      [...removed("render-cluster"), ...removed("sign-account"), "ApiServerSource/nats-operator/nats-operator-secrets"].sort(),
    );
    const rules = (without.get("ClusterRole//nats-operator-source") as unknown as { rules: { resources: string[] }[] }).rules;
    expect(rules.flatMap((r) => r.resources)).not.toContain("secrets");
    const changed = [...without.keys()].filter((k) => JSON.stringify(without.get(k)) !== JSON.stringify(all.get(k)));
    expect(changed).toEqual(["ClusterRole//nats-operator-source"]);
  });
});

describe("aggregatedRoles.enabled", () => {
  const aggregated = (m: Manifest) =>
    Object.keys(m.metadata.labels ?? {}).filter((l) => l.startsWith("rbac.authorization.k8s.io/aggregate-to-"));

  it("aggregates view into view, edit and admin, edit into edit and admin, admin into admin", async () => {
    const roles = byKey(await template());
    expect(aggregated(roles.get("ClusterRole//nats-operator-view") as Manifest).sort()).toEqual([
      "rbac.authorization.k8s.io/aggregate-to-admin",
      "rbac.authorization.k8s.io/aggregate-to-edit",
      "rbac.authorization.k8s.io/aggregate-to-view",
    ]);
    expect(aggregated(roles.get("ClusterRole//nats-operator-edit") as Manifest).sort()).toEqual([
      "rbac.authorization.k8s.io/aggregate-to-admin",
      "rbac.authorization.k8s.io/aggregate-to-edit",
    ]);
    expect(aggregated(roles.get("ClusterRole//nats-operator-admin") as Manifest)).toEqual([
      "rbac.authorization.k8s.io/aggregate-to-admin",
    ]);
  });

  it("false leaves out the three tenant roles and nothing else", async () => {
    const all = byKey(await template());
    const without = byKey(await template(["--set", "aggregatedRoles.enabled=false"]));
    expect([...all.keys()].filter((k) => !without.has(k)).sort()).toEqual([
      "ClusterRole//nats-operator-admin",
      "ClusterRole//nats-operator-edit",
      "ClusterRole//nats-operator-view",
    ]);
    expect([...without.values()].filter((m) => aggregated(m).length > 0)).toEqual([]);
  });
});

describe("watchNamespaces", () => {
  let all: Manifest[];
  beforeAll(async () => {
    all = await template(["--set", "watchNamespaces={team-a}"]);
  });
  const accounts = ["source", ...functionNames].map((f) => `nats-operator-${f}`);

  it("binds each account's ClusterRole in team-a and the release namespace only, never cluster-wide", () => {
    expect(all.filter((m) => m.kind === "ClusterRoleBinding")).toEqual([]);
    const bound = all.filter((m) => m.kind === "RoleBinding").map((m) => `${m.metadata.namespace}/${m.metadata.name}`);
    expect(bound.sort()).toEqual(
      [
        ...accounts.flatMap((a) => [`team-a/${a}`, `nats-operator/${a}`]),
        "nats-operator/nats-operator-balance-leases",
      ].sort(),
    );
  });

  it("has the ApiServerSources watch those namespaces, and the functions list only in them", () => {
    const sources = all.filter((m) => m.kind === "ApiServerSource");
    expect(sources).toHaveLength(3);
    for (const source of sources)
      expect(source.spec?.["namespaceSelector"]).toEqual({
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["team-a", "nats-operator"] }],
      });
    for (const name of ["render-cluster", "sign-account", "nats-operator-dead-letter"])
      expect(envOf(all, name)).toContainEqual({ name: "WATCH_NAMESPACES", value: "team-a,nats-operator" });
  });

  it("admits the watched namespaces' PingSources to the Broker when the EventPolicy is on", async () => {
    const policy = (
      await template(["--set", "watchNamespaces={team-a}", "--set", "oidc.eventPolicy.enabled=true"])
    ).find((m) => m.kind === "EventPolicy");
    expect(policy?.spec?.["from"]).toEqual([
      { sub: "system:serviceaccount:nats-operator:*" },
      { sub: "system:serviceaccount:team-a:*" },
    ]);
  });

  it("is refused when a name is not a namespace name", async () => {
    const result = await run(["template", "nats-operator", chartDir, "--set", "watchNamespaces={Team_A}"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/watchNamespaces/);
  });
});
