import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { clustersUsing, isInputRef, namesTrust, usesInput } from "./referrers.ts";

const operatorTrust = (namespace: string, name: string) => ({
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsOperatorTrust",
  namespace,
  name,
});
const accountTrust = (namespace: string, name: string) => ({
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsAccountTrust",
  namespace,
  name,
});
const withAuth = (
  trustRef: { name: string; namespace?: string },
  accountTrustRefs: { name: string; namespace?: string }[] = [],
  name = "demo",
) => demoCluster({ auth: { trustRef, accountTrustRefs } }, { name });

describe("trust referrers", () => {
  it("are NatsClusters whose trustRef names the operator trust, in their own namespace by default", () => {
    expect(namesTrust(withAuth({ name: "t" }), operatorTrust("nats-system", "t"))).toBe(true);
    expect(namesTrust(withAuth({ name: "t" }), operatorTrust("other", "t"))).toBe(false);
    expect(namesTrust(withAuth({ name: "t", namespace: "trusts" }), operatorTrust("trusts", "t"))).toBe(true);
    expect(namesTrust(demoCluster(), operatorTrust("nats-system", "t"))).toBe(false);
  });

  it("are NatsClusters whose accountTrustRefs name the account trust", () => {
    expect(namesTrust(withAuth({ name: "t" }, [{ name: "app" }]), accountTrust("nats-system", "app"))).toBe(true);
    expect(namesTrust(withAuth({ name: "app" }), accountTrust("nats-system", "app"))).toBe(false);
  });

  it("are found in every namespace", async () => {
    const kube = memoryKube([
      withAuth({ name: "t" }, [], "a"),
      withAuth({ name: "t" }, [], "b"),
      withAuth({ name: "u" }, [], "c"),
      demoCluster({}, { name: "d", namespace: "x" }),
    ]);
    expect((await clustersUsing(kube, operatorTrust("nats-system", "t"))).map((c) => c.metadata.name).sort()).toEqual([
      "a",
      "b",
    ]);
  });

  it("come from the events of the inputs of a rendered config: trusts, connections, grants", () => {
    expect(isInputRef(operatorTrust("a", "b"))).toBe(true);
    expect(isInputRef(accountTrust("a", "b"))).toBe(true);
    expect(isInputRef({ ...connection("a", "b") })).toBe(true);
    expect(isInputRef({ ...grant("a", "b") })).toBe(true);
    expect(
      isInputRef({ apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace: "a", name: "b" }),
    ).toBe(false);
  });
});

const connection = (namespace: string, name: string) => ({
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsConnection",
  namespace,
  name,
});
const grant = (namespace: string, name: string) => ({
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsReferenceGrant",
  namespace,
  name,
});
const leaf = (connectionRef: { name: string; namespace?: string }) =>
  demoCluster({ leafRemotes: [{ connectionRef }] } as never, { name: "edge", namespace: "edge" });

describe("leaf remote referrers", () => {
  it("are NatsClusters whose leaf remotes dial the NatsConnection, in their own namespace by default", () => {
    expect(usesInput(leaf({ name: "hub" }), connection("edge", "hub"))).toBe(true);
    expect(usesInput(leaf({ name: "hub", namespace: "hubs" }), connection("hubs", "hub"))).toBe(true);
    expect(usesInput(leaf({ name: "hub" }), connection("hubs", "hub"))).toBe(false);
  });

  it("are NatsClusters that refer into a grant's namespace from their own", () => {
    expect(usesInput(leaf({ name: "hub", namespace: "hubs" }), grant("hubs", "edges"))).toBe(true);
    expect(usesInput(leaf({ name: "hub" }), grant("edge", "any"))).toBe(false);
    expect(usesInput(withAuth({ name: "t", namespace: "trusts" }), grant("trusts", "g"))).toBe(true);
  });
});

describe("Secret referrers", () => {
  const secret = (namespace: string, name: string) => ({ apiVersion: "v1", kind: "Secret", namespace, name });
  const withTls = demoCluster({ tls: { client: { secretRef: { name: "demo-client-tls" } } } } as never);

  it("are NatsClusters of the Secret's namespace whose spec names it", () => {
    const ns = withTls.metadata.namespace ?? "";
    expect(usesInput(withTls, secret(ns, "demo-client-tls"))).toBe(true);
    expect(usesInput(withTls, secret(ns, "other"))).toBe(false);
    expect(usesInput(withTls, secret("elsewhere", "demo-client-tls"))).toBe(false);
  });

  it("are NatsClusters for whose listener cert-manager issues the Secret", () => {
    const cluster = demoCluster({ tls: { certManager: { issuerRef: { name: "ca" } } } });
    expect(usesInput(cluster, secret("nats-system", "demo-client-tls"))).toBe(true);
    expect(usesInput(cluster, secret("nats-system", "demo-routes-tls"))).toBe(false);
    expect(usesInput(cluster, secret("other", "demo-client-tls"))).toBe(false);
  });

  it("come from Secret events", () => {
    expect(isInputRef(secret("a", "b"))).toBe(true);
  });

  it("include NatsClusters in any namespace whose leaf remote dials a NatsConnection that names the Secret", async () => {
    const hub = {
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "hub", namespace: "edge-creds" },
      spec: { servers: ["nats://hub:7422"], credentials: { secretKeyRef: { name: "hub-creds" } } },
    };
    const kube = memoryKube([
      hub,
      demoCluster({ leafRemotes: [{ connectionRef: { name: "hub", namespace: "edge-creds" } }] } as never, {
        name: "edge",
        namespace: "edge",
      }),
      demoCluster({ leafRemotes: [{ connectionRef: { name: "other" } }] } as never, {
        name: "other",
        namespace: "edge-creds",
      }),
    ]);
    const names = async (ref: ReturnType<typeof secret>) =>
      (await clustersUsing(kube, ref)).map((c) => c.metadata.name);
    expect(await names(secret("edge-creds", "hub-creds"))).toEqual(["edge"]);
    expect(await names(secret("edge-creds", "unrelated"))).toEqual([]);
    expect(await names(secret("edge", "hub-creds"))).toEqual([]);
  });
});
