import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../test/fixtures/cluster/clusters.ts";
import { allowGatewayWithoutTls, judgeListeners } from "./listeners.ts";

const gateway = {
  discovery: "Explicit" as const,
  remotes: [
    { name: "demo", url: "tls://demo.example:7222" },
    { name: "south", url: "tls://south.example:7222" },
  ],
};
const { "ca.crt": _ca, ...withoutCa } = routeTlsData();

describe("listener TLS (C47, C48, C51)", () => {
  it("refuses a gateway without TLS, naming the fix", () => {
    expect(judgeListeners(demoCluster({ gateway }), {}, false)).toMatchObject({
      kind: "refused",
      reason: "GatewayWithoutTLS",
      message: expect.stringContaining("NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS=true") as unknown,
    });
  });

  it("refuses an Explicit member list that leaves this cluster out, naming the fix", () => {
    const others = { ...gateway, remotes: gateway.remotes.filter((r) => r.name !== "demo") };
    expect(judgeListeners(demoCluster({ gateway: others }), {}, true)).toEqual({
      kind: "refused",
      reason: "UnsupportedSpec",
      message:
        "spec.gateway.remotes does not list this cluster (demo): with Explicit discovery it lists every member of " +
        "the supercluster, this one included; add {name: demo, url: <the URL other members dial for it>}",
    });
    // Gossip remotes are seeds: this cluster need not be among them.
    expect(judgeListeners(demoCluster({ gateway: { ...others, discovery: "Gossip" } }), {}, true)).toEqual({
      kind: "ready",
    });
  });

  it("lets it run in clear when the operator allows it", () => {
    expect(judgeListeners(demoCluster({ gateway }), {}, true)).toEqual({ kind: "ready" });
  });

  it("waits for a gateway Secret holding ca.crt: peers are verified against the private CA, never the system roots", () => {
    const cluster = demoCluster({ gateway: { ...gateway, tls: { secretRef: { name: "gw" } } } });
    expect(judgeListeners(cluster, { gateway: withoutCa }, false)).toMatchObject({
      kind: "waiting",
      reason: "GatewayCertificateNotReady",
      message: expect.stringContaining("Secret gw does not hold tls.crt, tls.key and ca.crt") as unknown,
    });
    expect(judgeListeners(cluster, { gateway: routeTlsData() }, false)).toEqual({ kind: "ready" });
  });

  it("waits for the leafnode listener's certificate and key", () => {
    const cluster = demoCluster({ leafnodes: { tls: { secretRef: { name: "leaf" } } } });
    expect(judgeListeners(cluster, {}, false)).toMatchObject({
      kind: "waiting",
      reason: "LeafnodesCertificateNotReady",
    });
    expect(judgeListeners(cluster, { leafnodes: withoutCa }, false)).toEqual({ kind: "ready" });
  });

  it("refuses a leaf that preloads accounts into a Full resolver without a volume to keep them on (C43)", () => {
    const leaf = (extra: Parameters<typeof demoCluster>[0]) =>
      demoCluster({
        auth: { trustRef: { name: "corp" } },
        leafRemotes: [{ connectionRef: { name: "hub" }, localAccountTrustRef: { name: "sensors" } }],
        jetstream: { domain: "site", storage: "Ephemeral" },
        ...extra,
      });
    expect(judgeListeners(leaf({}), {}, false)).toMatchObject({ kind: "refused", reason: "UnsupportedSpec" });
    expect(judgeListeners(leaf({ auth: { trustRef: { name: "corp" }, resolver: "Cache" } }), {}, false)).toEqual({
      kind: "ready",
    });
    const kept = { domain: "site", volumeClaimTemplate: { spec: { resources: { requests: { storage: "1Gi" } } } } };
    expect(judgeListeners(leaf({ jetstream: kept }), {}, false)).toEqual({ kind: "ready" });
  });

  it("reads allow-gateway-without-tls from NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS, true only when it says true", () => {
    expect(allowGatewayWithoutTls({ NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS: "true" })).toBe(true);
    expect(allowGatewayWithoutTls({ NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS: "1" })).toBe(false);
    expect(allowGatewayWithoutTls({})).toBe(false);
  });
});
