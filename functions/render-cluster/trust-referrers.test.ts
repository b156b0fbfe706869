import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { clustersNaming, isTrustRef, namesTrust } from "./trust-referrers.ts";

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
    expect((await clustersNaming(kube, operatorTrust("nats-system", "t"))).map((c) => c.metadata.name).sort()).toEqual([
      "a",
      "b",
    ]);
  });

  it("come from trust events only", () => {
    expect(isTrustRef(operatorTrust("a", "b"))).toBe(true);
    expect(isTrustRef(accountTrust("a", "b"))).toBe(true);
    expect(
      isTrustRef({ apiVersion: "cluster.nats-operator.io/v1beta1", kind: "NatsCluster", namespace: "a", name: "b" }),
    ).toBe(false);
  });
});
