import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../../test/fixtures/cluster/clusters.ts";
import { planCluster } from "./cluster-plan.ts";

type Container = {
  name: string;
  image: string;
  env?: { name: string; value: string }[];
  readinessProbe: { httpGet: { path: string } };
  lifecycle: { preStop: { exec: { command: string[] } } };
};
type PodSpec = {
  automountServiceAccountToken: boolean;
  terminationGracePeriodSeconds: number;
  securityContext: Record<string, unknown>;
  containers: Container[];
  affinity: unknown;
};

const plan = (cluster = demoCluster(), data = routeTlsData()) =>
  planCluster({ cluster, routeTlsData: data, operatorNamespace: "nats-operator" });
const podSpec = (p = plan(), i = 0) => p.servers[i]?.statefulSet.spec.template.spec as unknown as PodSpec;
const nats = (p = plan()) => podSpec(p).containers.find((c) => c.name === "nats");

describe("cluster plan", () => {
  it("renders one single-replica StatefulSet and one ConfigMap per server", () => {
    const p = plan();
    expect(
      p.servers.map((s) => [s.statefulSet.metadata.name, s.configMap.metadata.name, s.statefulSet.spec["replicas"]]),
    ).toEqual([
      ["demo-0", "demo-0-config", 1],
      ["demo-1", "demo-1-config", 1],
      ["demo-2", "demo-2-config", 1],
    ]);
  });

  it("puts the revision in each config, ConfigMap, StatefulSet and pod template", () => {
    const p = plan();
    const server = p.servers[0];
    expect(p.revision).toMatch(/^[0-9a-f]{10}$/);
    expect(server?.config).toContain(`"config_revision": "${p.revision}"`);
    expect(server?.configMap.metadata.annotations?.["cluster.nats-operator.io/config-revision"]).toBe(p.revision);
    expect(server?.statefulSet.metadata.annotations?.["cluster.nats-operator.io/config-revision"]).toBe(p.revision);
    expect(server?.statefulSet.spec.template.metadata.annotations["cluster.nats-operator.io/config-revision"]).toBe(
      p.revision,
    );
  });

  it("keeps the same revision for the same input", () => {
    expect(plan().revision).toBe(plan().revision);
  });

  it("moves the revision and the spec digest when the memory limit changes", () => {
    const before = plan();
    const after = plan(demoCluster({ resources: { limits: { memory: "8Gi" } } }));
    expect(after.revision).not.toBe(before.revision);
    expect(after.servers[0]?.specDigest).not.toBe(before.servers[0]?.specDigest);
  });

  it("moves the revision but not the spec digest when the route certificate is renewed", () => {
    const before = plan();
    const after = plan(demoCluster(), routeTlsData("b"));
    expect(after.revision).not.toBe(before.revision);
    expect(after.servers[0]?.specDigest).toBe(before.servers[0]?.specDigest);
  });

  it("moves only the volume digest when the claim template changes", () => {
    const before = plan();
    const base = demoCluster().spec;
    const after = plan(
      demoCluster({
        jetstream: {
          volumeClaimTemplate: { spec: { ...base.jetstream?.volumeClaimTemplate?.spec, storageClassName: "fast" } },
        },
      }),
    );
    expect(after.revision).toBe(before.revision);
    expect(after.servers[0]?.volumeDigest).not.toBe(before.servers[0]?.volumeDigest);
  });

  it("runs the image tagged with the version, pinned by digest when one is given", () => {
    expect(nats()?.image).toBe("nats:2.15.0");
    const digest = `sha256:${"a".repeat(64)}`;
    expect(nats(plan(demoCluster({ image: { repository: "reg/nats", digest } })))?.image).toBe(
      `reg/nats:2.15.0@${digest}`,
    );
  });

  it("meets the restricted Pod Security Standard without a ServiceAccount token", () => {
    const spec = podSpec();
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    for (const c of spec.containers) {
      expect((c as unknown as { securityContext: unknown }).securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
    }
  });

  it("enters lame duck on preStop within a 300-second grace period", () => {
    expect(nats()?.lifecycle.preStop.exec.command).toEqual(["nats-server", "--signal", "ldm=/var/run/nats/nats.pid"]);
    expect(podSpec().terminationGracePeriodSeconds).toBe(300);
  });

  it("is ready once the JetStream server is healthy", () => {
    expect(nats()?.readinessProbe.httpGet.path).toBe("/healthz?js-server-only=true");
  });

  it("passes GOMEMLIMIT at 90% of the memory limit", () => {
    expect(nats()?.env).toEqual([{ name: "GOMEMLIMIT", value: String(Math.floor((4 * 1024 ** 3 * 9) / 10)) }]);
  });

  it("runs the exporter sidecar unless it is disabled", () => {
    expect(podSpec().containers.map((c) => c.name)).toEqual(["nats", "exporter"]);
    expect(podSpec(plan(demoCluster({ exporter: { enabled: false } }))).containers.map((c) => c.name)).toEqual([
      "nats",
    ]);
  });

  it("prefers distinct nodes unless podTemplate sets an affinity", () => {
    expect(JSON.stringify(podSpec().affinity)).toContain("kubernetes.io/hostname");
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } };
    expect(podSpec(plan(demoCluster({ podTemplate: { spec: { affinity } } }))).affinity).toEqual(affinity);
  });

  it("merges podTemplate containers by name and keeps the rendered probe port", () => {
    const p = plan(
      demoCluster({
        podTemplate: { spec: { containers: [{ name: "nats", readinessProbe: { httpGet: { path: "/healthz" } } }] } },
      }),
    );
    expect(nats(p)?.readinessProbe.httpGet).toEqual({ path: "/healthz", port: "monitor" });
    expect(nats(p)?.image).toBe("nats:2.15.0");
  });

  it("labels each claim with its server", () => {
    const claims = plan().servers[1]?.statefulSet.spec["volumeClaimTemplates"] as {
      metadata: { labels: Record<string, string> };
    }[];
    expect(claims[0]?.metadata.labels["cluster.nats-operator.io/server"]).toBe("demo-1");
  });

  it("renders a client Service, a headless Service, a PDB and a NetworkPolicy", () => {
    expect(plan().shared.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Service/demo",
      "Service/demo-headless",
      "PodDisruptionBudget/demo",
      "NetworkPolicy/demo",
    ]);
  });

  it("exposes only the client port on the client Service", () => {
    const service = plan().shared[0] as unknown as { spec: { ports: { port: number }[] } };
    expect(service.spec.ports.map((p) => p.port)).toEqual([4222]);
  });

  it("lets at most one server pod be disrupted", () => {
    expect((plan().shared[2] as unknown as { spec: unknown }).spec).toMatchObject({ maxUnavailable: 1 });
  });

  it("admits routes only from the cluster's pods and monitoring only from the operator's namespace", () => {
    const policy = plan().shared[3] as unknown as {
      spec: { ingress: { ports: { port: number }[]; from?: unknown[] }[] };
    };
    const rule = (port: number) => policy.spec.ingress.find((r) => r.ports.some((p) => p.port === port));
    expect(rule(4222)?.from).toBeUndefined();
    expect(rule(6222)?.from).toEqual([
      { podSelector: { matchLabels: { "cluster.nats-operator.io/cluster": "demo" } } },
    ]);
    expect(rule(8222)?.from).toEqual([
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "nats-operator" } } },
    ]);
  });

  it("renders no NetworkPolicy when monitor.networkPolicy is false", () => {
    expect(plan(demoCluster({ monitor: { networkPolicy: false } })).shared.map((o) => o.kind)).not.toContain(
      "NetworkPolicy",
    );
  });

  it("reports endpoints and effective limits for status", () => {
    expect(plan().status).toEqual({
      replicas: 3,
      endpoints: { client: "nats://demo.nats-system.svc:4222", monitor: "http://demo-headless.nats-system.svc:8222" },
      jetstream: { limits: { maxMemoryStore: "3Gi", maxFileStore: "19Gi" } },
    });
  });
});
