import { describe, expect, it } from "@jest/globals";
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";
import type { KubeObject } from "../../shared/kube/index.ts";
import { demoCluster, routeTlsData } from "../../test/fixtures/cluster/clusters.ts";
import { type Cluster, planCertificates, routeTlsPlan, type SecretObject } from "../cluster/index.ts";
import { decide } from "./decide.ts";
import type { RenderableCluster } from "./observe.ts";
import type { ObservedCertificates } from "./tls/certificates.ts";
import type { IssuerPresence } from "./tls/issuers.ts";

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
  certificates: ObservedCertificates = { kind: "known", byName: new Map(), issuers: new Map() },
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
  issuers: new Map(),
});

/** No Certificate yet, and each issuer as read (`Issuer/name`, `ClusterIssuer/name`). */
const issuers = (presence: Record<string, IssuerPresence>): ObservedCertificates => ({
  kind: "known",
  byName: new Map(),
  issuers: new Map(Object.entries(presence)),
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

describe("render-cluster and a cert-manager issuer that does not exist (#13)", () => {
  /** The client Secret already holds a certificate: without the hold, the servers would be created. */
  const issued = { clientTls: secret("demo-client-tls") } satisfies Partial<RenderableCluster>;

  it("a missing Issuer holds the servers with a message naming spec.tls.certManager.issuerRef and the fix", () => {
    const decision = decide(
      observed(
        { tls: { certManager: { issuerRef: { name: "ca-issuer" } } } },
        issuers({ "Issuer/ca-issuer": "missing" }),
      ),
      NOW,
    );
    expect(decision.failure).toEqual({
      kind: "set",
      failure: {
        reason: "ClientCertificateNotReady",
        message: expect.stringMatching(
          /^spec\.tls\.certManager\.issuerRef names Issuer ca-issuer, which does not exist in namespace nats-system: create it, or name another issuer/,
        ),
      },
    });
    expect(decision.events).toEqual([
      expect.objectContaining({ type: "Warning", reason: "ClientCertificateNotReady" }),
    ]);
    // Nothing of the render is written: no server, no Service, no status; only the Certificate.
    expect(decision.writes.map((w) => `${w.kind} ${w.object.kind}/${w.object.metadata.name}`)).toEqual([
      "apply Certificate/demo-client",
    ]);
    expect(decision.status).toBeUndefined();
    expect(decision.summary).toMatch(/^held, ClientCertificateNotReady/);
  });

  it("a missing Issuer holds the render even once the Secret holds a certificate, and a poll looks for the issuer", () => {
    const decision = decide(
      observed({ tls: { certManager: { issuerRef } } }, issuers({ "Issuer/nats-ca": "missing" }), issued),
      NOW,
    );
    expect(decision.writes.filter((w) => w.object.kind !== "Certificate")).toEqual([]);
    expect(decision.schedules.map((s) => [s.schedule.name, s.poll])).toEqual([["demo-render-poll", { every: "30s" }]]);
  });

  it("a missing ClusterIssuer names no namespace, under the listener's own reason", () => {
    const decision = decide(
      observed(
        { routes: { tls: { certManager: { issuerRef: { name: "root", kind: "ClusterIssuer" } } } } },
        issuers({ "ClusterIssuer/root": "missing" }),
      ),
      NOW,
    );
    expect(decision.failure).toEqual({
      kind: "set",
      failure: {
        reason: "RouteCertificateNotReady",
        message: expect.stringMatching(
          /^spec\.routes\.tls\.certManager\.issuerRef names ClusterIssuer root, which does not exist: create it, or name another issuer/,
        ),
      },
    });
    expect(createsServers(decision)).toBe(false);
  });

  it("names the first listener whose issuer is missing, in listener order", () => {
    const decision = decide(
      observed(
        {
          tls: { certManager: { issuerRef: { name: "client-ca" } } },
          routes: { tls: { certManager: { issuerRef: { name: "route-ca" } } } },
        },
        issuers({ "Issuer/client-ca": "present", "Issuer/route-ca": "missing" }),
      ),
      NOW,
    );
    expect(decision.failure).toMatchObject({ failure: { reason: "RouteCertificateNotReady" } });
  });

  it("an issuer of another group is not checked", () => {
    const external = { name: "vault", kind: "VaultIssuer", group: "vault.example.com" };
    const decision = decide(
      observed({ tls: { certManager: { issuerRef: external } } }, issuers({ "VaultIssuer/vault": "missing" }), issued),
      NOW,
    );
    expect(decision.failure).toBeUndefined();
    expect(decision.status).toBeDefined();
  });

  it("an issuer that could not be read (forbidden, or its kind unknown) holds nothing", () => {
    const decision = decide(
      observed({ tls: { certManager: { issuerRef } } }, issuers({ "Issuer/nats-ca": "unknown" }), {
        clientTls: secret("demo-client-tls"),
      }),
      NOW,
    );
    expect(decision.failure).toBeUndefined();
    expect(createsServers(decision)).toBe(true);
  });

  it("an existing issuer renders as before", () => {
    const decision = decide(
      observed({ tls: { certManager: { issuerRef } } }, issuers({ "Issuer/nats-ca": "present" }), {
        clientTls: secret("demo-client-tls"),
      }),
      NOW,
    );
    expect(decision.failure).toBeUndefined();
    expect(certificateWrites(decision)).toEqual(["apply demo-client"]);
    expect(createsServers(decision)).toBe(true);
  });

  it("clears the recorded hold once the issuer exists", () => {
    const held = decide(
      observed({ tls: { certManager: { issuerRef } } }, issuers({ "Issuer/nats-ca": "missing" })),
      NOW,
    );
    const failure = held.failure?.kind === "set" ? held.failure.failure : undefined;
    const cluster = demoCluster({
      routes: { tls: { secretRef: { name: "routes" } } },
      tls: { certManager: { issuerRef } },
    });
    const annotated = {
      ...cluster,
      metadata: {
        ...cluster.metadata,
        annotations: {
          [RENDER_FAILURE_ANNOTATION]: failure?.message ?? "",
          [RENDER_FAILURE_REASON_ANNOTATION]: failure?.reason ?? "",
        },
      },
    };
    const decision = decide(
      {
        ...observed({ tls: { certManager: { issuerRef } } }, issuers({ "Issuer/nats-ca": "present" }), {
          clientTls: secret("demo-client-tls"),
        }),
        cluster: annotated,
      },
      NOW,
    );
    expect(decision.failure).toEqual({ kind: "clear" });
    expect(createsServers(decision)).toBe(true);
  });
});
