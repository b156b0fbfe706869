import { describe, expect, it } from "@jest/globals";
import { createKube, KubeRequestError } from "../../../shared/kube/index.ts";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { scriptedTransport } from "../../../test/support/fake-transport.ts";
import { readCertificates } from "./certificates.ts";

const CERTIFICATES = "GET /apis/cert-manager.io/v1/namespaces/nats-system/certificates";
const ISSUER = "GET /apis/cert-manager.io/v1/namespaces/nats-system/issuers/ca";
const CLUSTER_ISSUER = "GET /apis/cert-manager.io/v1/clusterissuers/root";

const notFound = () => new KubeRequestError(404, "NotFound", "not found");

const withIssuers = () =>
  demoCluster({
    tls: { certManager: { issuerRef: { name: "ca" } } },
    routes: { tls: { certManager: { issuerRef: { name: "root", kind: "ClusterIssuer" } } } },
    leafnodes: { tls: { certManager: { issuerRef: { name: "vault", kind: "VaultIssuer", group: "example.com" } } } },
  });

describe("reading the issuers the Certificates name", () => {
  it("GETs the Issuer in the cluster's namespace and the ClusterIssuer in none; a 404 reads as missing", async () => {
    const transport = scriptedTransport({ [CERTIFICATES]: [{ items: [] }], [ISSUER]: [notFound()] });
    const observed = await readCertificates(createKube(transport), withIssuers());
    expect(observed.kind === "known" && Object.fromEntries(observed.issuers)).toEqual({
      "Issuer/ca": "missing",
      "ClusterIssuer/root": "present",
    });
    // The issuer of another group is never asked for.
    expect(transport.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      [CERTIFICATES, CLUSTER_ISSUER, ISSUER].sort(),
    );
  });

  it("reads a forbidden or failing GET as unknown, without failing the delivery", async () => {
    const transport = scriptedTransport({
      [CERTIFICATES]: [{ items: [] }],
      [ISSUER]: [new KubeRequestError(403, "Forbidden", "forbidden")],
      [CLUSTER_ISSUER]: [new KubeRequestError(503, "ServiceUnavailable", "unavailable")],
    });
    const observed = await readCertificates(createKube(transport), withIssuers());
    expect(observed.kind === "known" && Object.fromEntries(observed.issuers)).toEqual({
      "Issuer/ca": "unknown",
      "ClusterIssuer/root": "unknown",
    });
  });

  it("asks for no issuer while the Certificate kind is unknown (cert-manager not installed)", async () => {
    const transport = scriptedTransport({ [CERTIFICATES]: [notFound()] });
    expect(await readCertificates(createKube(transport), withIssuers())).toEqual({ kind: "unknown" });
    expect(transport.requests).toHaveLength(1);
  });
});
