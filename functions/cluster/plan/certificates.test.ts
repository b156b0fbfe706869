import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { planCertificates } from "./certificates.ts";

const issuerRef = { name: "ca" };

describe("the cert-manager Certificates a NatsCluster asks for", () => {
  it("asks for none without certManager", () => {
    expect(planCertificates(demoCluster({ tls: { secretRef: { name: "mine" } } }))).toEqual({
      wanted: [],
      unplanned: [],
    });
  });

  it("asks for no route certificate while route TLS is off", () => {
    expect(planCertificates(demoCluster({ routes: { tls: { enabled: false } } })).wanted).toEqual([]);
  });

  it("issues the gateway certificate for this cluster's own remote URL and advertise, IPs apart", () => {
    const cluster = demoCluster({
      gateway: {
        discovery: "Explicit",
        advertise: "192.0.2.7:7222",
        remotes: [
          { name: "demo", url: "tls://demo.example:7222" },
          { name: "south", url: "tls://south.example:7222" },
        ],
        tls: { certManager: { issuerRef } },
      },
    });
    const [gateway] = planCertificates(cluster).wanted;
    expect(gateway?.object.metadata.name).toBe("demo-gateway");
    expect(gateway?.object.spec).toMatchObject({
      secretName: "demo-gateway-tls",
      dnsNames: ["demo.example"],
      ipAddresses: ["192.0.2.7"],
      usages: ["digital signature", "server auth", "client auth"],
    });
  });

  it("cannot ask for a gateway certificate with no host other members dial", () => {
    const cluster = demoCluster({
      gateway: {
        discovery: "Gossip",
        remotes: [{ name: "south", url: "tls://south.example:7222" }],
        tls: { certManager: { issuerRef } },
      },
    });
    const plan = planCertificates(cluster);
    expect(plan.wanted).toEqual([]);
    expect(plan.unplanned).toEqual([{ listener: "gateway", message: expect.stringContaining("gateway.advertise") }]);
  });

  it("issues the leafnode certificate for the leafnodes Service and the advertised host", () => {
    const cluster = demoCluster({
      leafnodes: { advertise: "leaf.example:7422", tls: { certManager: { issuerRef } } },
    });
    const [leaf] = planCertificates(cluster).wanted;
    expect(leaf?.object.spec.secretName).toBe("demo-leafnodes-tls");
    expect(leaf?.object.spec.dnsNames).toEqual(
      expect.arrayContaining(["demo-leafnodes.nats-system.svc", "leaf.example"]),
    );
  });
});
