import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../shared/kube/object.ts";
import { demoCluster, routeTlsData } from "../../test/fixtures/cluster/clusters.ts";
import { type Cluster, planCertificates, routeTlsPlan } from "../cluster/index.ts";
import { decide } from "./decide.ts";
import type { RenderableCluster } from "./observe.ts";
import type { ObservedCertificates } from "./tls/certificates.ts";
import type { SecretObject } from "./tls/route-secrets.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const issuerRef = { name: "nats-ca" };

const secret = (name: string): SecretObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace: "nats-system" },
  data: routeTlsData(),
});

/** Route TLS from a named Secret that holds its certificate, so only the Certificates decide. */
function observed(
  spec: Partial<Cluster["spec"]>,
  certificates: ObservedCertificates = { kind: "known", byName: new Map() },
  extra: Partial<RenderableCluster> = {},
): RenderableCluster {
  const cluster = demoCluster({ routes: { tls: { secretRef: { name: "routes" } } }, ...spec });
  return {
    kind: "render",
    cluster,
    routes: { plan: routeTlsPlan(cluster), mounted: secret("routes") },
    listeners: {},
    leafRemotes: { ready: [], refused: [] },
    certificates,
    rendered: { shared: new Map(), servers: new Map() },
    ...extra,
  };
}

const known = (...objects: KubeObject[]): ObservedCertificates => ({
  kind: "known",
  byName: new Map(objects.map((o) => [o.metadata.name, o])),
});

const certificateWrites = (decision: ReturnType<typeof decide>) =>
  decision.writes.filter((w) => w.object.kind === "Certificate").map((w) => `${w.kind} ${w.object.metadata.name}`);
const createsServers = (decision: ReturnType<typeof decide>) => decision.writes.some((w) => w.kind === "create");

describe("render-cluster and cert-manager Certificates", () => {
  it("asks cert-manager for the client certificate, issued into the client TLS Secret, and waits for it", () => {
    const decision = decide(observed({ tls: { certManager: { issuerRef } } }), NOW);
    expect(certificateWrites(decision)).toEqual(["apply demo-client"]);
    const certificate = decision.writes[0]?.object as KubeObject & { spec: Record<string, unknown> };
    expect(certificate.spec).toMatchObject({
      secretName: "demo-client-tls",
      issuerRef: { name: "nats-ca", kind: "Issuer", group: "cert-manager.io" },
      dnsNames: expect.arrayContaining(["demo.nats-system.svc", "*.demo-headless.nats-system.svc"]),
      usages: ["digital signature", "server auth"],
    });
    expect(certificate.metadata.ownerReferences?.[0]).toMatchObject({ kind: "NatsCluster", uid: "uid-demo" });
    expect(createsServers(decision)).toBe(false);
    expect(decision.schedules.map((s) => s.schedule.name)).toContain("demo-render-poll");
  });

  it("creates the servers once cert-manager has written the Secret", () => {
    const wanted = planCertificates(demoCluster({ tls: { certManager: { issuerRef } } })).wanted[0]?.object;
    if (!wanted) throw new Error("no Certificate planned");
    const decision = decide(
      observed({ tls: { certManager: { issuerRef } } }, known(wanted), { clientTls: secret("demo-client-tls") }),
      NOW,
    );
    expect(certificateWrites(decision)).toEqual([]);
    expect(createsServers(decision)).toBe(true);
  });

  it("asks for the route certificate for every server's name, presented to peers as client and server", () => {
    const decision = decide(
      observed({ routes: { tls: { certManager: { issuerRef: { name: "ca", kind: "ClusterIssuer" } } } } }),
      NOW,
    );
    const certificate = decision.writes.find((w) => w.object.kind === "Certificate")?.object as
      (KubeObject & { spec: Record<string, unknown> }) | undefined;
    expect(certificate?.metadata.name).toBe("demo-routes");
    expect(certificate?.spec).toMatchObject({
      secretName: "demo-routes-tls",
      issuerRef: { name: "ca", kind: "ClusterIssuer" },
      dnsNames: ["*.demo-headless.nats-system.svc", "*.demo-headless.nats-system.svc.cluster.local"],
      usages: ["digital signature", "server auth", "client auth"],
    });
  });

  it("deletes its Certificate once no listener names certManager", () => {
    const ours = planCertificates(demoCluster({ tls: { certManager: { issuerRef } } })).wanted[0]?.object;
    if (!ours) throw new Error("no Certificate planned");
    const decision = decide(observed({ tls: { secretRef: { name: "mine" } } }, known(ours)), NOW);
    expect(certificateWrites(decision)).toEqual(["delete demo-client"]);
  });

  it("leaves a Certificate of that name it does not control alone, and says so", () => {
    const foreign = { apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "demo-client" } };
    const decision = decide(observed({ tls: { certManager: { issuerRef } } }, known(foreign)), NOW);
    expect(certificateWrites(decision)).toEqual([]);
    expect(decision.failure).toMatchObject({ kind: "set", failure: { reason: "ReconcileFailed" } });
  });

  it("without cert-manager, writes no Certificate, keeps the servers waiting and says the kind is unknown", () => {
    const decision = decide(observed({ tls: { certManager: { issuerRef } } }, { kind: "unknown" }), NOW);
    expect(certificateWrites(decision)).toEqual([]);
    expect(createsServers(decision)).toBe(false);
    expect(decision.failure).toMatchObject({
      kind: "set",
      failure: {
        reason: "ClientCertificateNotReady",
        message: expect.stringContaining("cert-manager Certificate is not a known kind"),
      },
    });
    expect(decision.events).toHaveLength(1);
  });

  it("without cert-manager, renders a cluster that names no certManager as before", () => {
    const decision = decide(observed({}, { kind: "unknown" }), NOW);
    expect(decision.failure).toBeUndefined();
    expect(createsServers(decision)).toBe(true);
  });
});
