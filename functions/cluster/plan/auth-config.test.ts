import { beforeAll, describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../../test/fixtures/cluster/clusters.ts";
import { createOperator, type TestOperator } from "../../../test/support/nats-auth.ts";
import type { Cluster } from "../cluster.ts";
import { validateTrust, type ReadyTrust } from "../trust/trust-validation.ts";
import { chooseResolver } from "./auth-config.ts";
import { planCluster } from "./cluster-plan.ts";

let operator: TestOperator;
let trust: ReadyTrust;
beforeAll(async () => {
  operator = await createOperator();
  const judged = validateTrust("test", operator.operatorJWT, operator.systemAccount.jwt);
  if (judged.kind !== "ready") throw new Error(judged.message);
  trust = judged;
});

const auth = (extra: Partial<NonNullable<Cluster["spec"]["auth"]>> = {}) => ({ trustRef: { name: "trust" }, ...extra });
const leafRemote = { connectionRef: { name: "hub" } };
const plan = (cluster: Cluster, withTrust: ReadyTrust = trust) =>
  planCluster({ cluster, routeTlsData: routeTlsData(), trust: withTrust });
const config = (cluster: Cluster, withTrust: ReadyTrust = trust) =>
  JSON.parse(plan(cluster, withTrust).servers[0]?.config ?? "{}") as Record<string, unknown>;
type Volume = { name: string; emptyDir?: unknown };
type PodSpec = {
  volumes: Volume[];
  containers: { name: string; volumeMounts: { name: string; mountPath: string }[] }[];
};
const podSpec = (cluster: Cluster) => plan(cluster).servers[0]?.statefulSet.spec.template.spec as unknown as PodSpec;

describe("operator mode", () => {
  it("adds operator, system_account, resolver and resolver_preload after the other keys", () => {
    expect(Object.keys(config(demoCluster({ auth: auth() })))).toEqual([
      "server_name",
      "listen",
      "http",
      "pid_file",
      "lame_duck_duration",
      "lame_duck_grace_period",
      "server_metadata",
      "cluster",
      "jetstream",
      "operator",
      "system_account",
      "resolver",
      "resolver_preload",
    ]);
  });

  it("inlines the operator JWT, names the system account and preloads its JWT", () => {
    expect(config(demoCluster({ auth: auth() }))).toMatchObject({
      operator: operator.operatorJWT,
      system_account: operator.systemAccount.publicKey,
      resolver_preload: { [operator.systemAccount.publicKey]: operator.systemAccount.jwt },
    });
  });

  it("preloads the accountTrustRefs accounts after the system account", () => {
    const withAccounts: ReadyTrust = { ...trust, accounts: { AAPP: "app-jwt" } };
    expect(
      config(demoCluster({ auth: auth({ accountTrustRefs: [{ name: "app" }] }) }), withAccounts)["resolver_preload"],
    ).toEqual({
      [operator.systemAccount.publicKey]: operator.systemAccount.jwt,
      AAPP: "app-jwt",
    });
  });

  it("runs a Full resolver that allows deletes on the data volume by default", () => {
    expect(config(demoCluster({ auth: auth() }))["resolver"]).toEqual({
      type: "full",
      dir: "/data/resolver",
      allow_delete: true,
    });
  });

  it("runs a Cache resolver when the spec asks for one", () => {
    expect(config(demoCluster({ auth: auth({ resolver: "Cache" }) }))["resolver"]).toEqual({
      type: "cache",
      dir: "/data/resolver",
    });
  });

  it("renders nothing of auth without spec.auth, or without a trust", () => {
    expect(config(demoCluster())).not.toHaveProperty("operator");
    const untrusted = planCluster({ cluster: demoCluster({ auth: auth() }), routeTlsData: routeTlsData() });
    expect(untrusted.servers[0]?.config).not.toContain('"operator"');
  });

  it("moves the revision, and only it, when the trust changes", async () => {
    const other = await createOperator();
    const judged = validateTrust("test", other.operatorJWT, other.systemAccount.jwt);
    if (judged.kind !== "ready") throw new Error(judged.message);
    const before = plan(demoCluster({ auth: auth() }));
    const after = plan(demoCluster({ auth: auth() }), judged);
    expect(after.revision).not.toBe(before.revision);
    expect(after.servers[0]?.specDigest).toBe(before.servers[0]?.specDigest);
  });

  it("mounts an emptyDir data volume for the resolver when there is no JetStream claim", () => {
    const spec = podSpec(demoCluster({ auth: auth(), jetstream: undefined }));
    expect(spec.volumes.find((v) => v.name === "data")).toEqual({ name: "data", emptyDir: {} });
    expect(spec.containers.find((c) => c.name === "nats")?.volumeMounts).toContainEqual({
      name: "data",
      mountPath: "/data",
    });
  });

  it("keeps the resolver on the JetStream claim when there is one", () => {
    const spec = podSpec(demoCluster({ auth: auth() }));
    expect(spec.volumes.find((v) => v.name === "data")).toBeUndefined();
    expect(spec.containers.find((c) => c.name === "nats")?.volumeMounts).toContainEqual({
      name: "data",
      mountPath: "/data",
    });
  });

  it("mounts no data volume without JetStream and auth", () => {
    const spec = podSpec(demoCluster({ jetstream: undefined }));
    expect(spec.volumes.find((v) => v.name === "data")).toBeUndefined();
    expect(spec.containers.find((c) => c.name === "nats")?.volumeMounts.map((m) => m.name)).not.toContain("data");
  });
});

describe("resolver choice", () => {
  it("is Full for a cluster that is no leaf", () => {
    expect(chooseResolver(demoCluster({ auth: auth() }))).toBe("Full");
  });

  it("is Cache for a leaf that preloads no account", () => {
    expect(chooseResolver(demoCluster({ auth: auth(), leafRemotes: [leafRemote] }))).toBe("Cache");
  });

  it("is Full for a leaf that preloads an account", () => {
    expect(
      chooseResolver(demoCluster({ auth: auth({ accountTrustRefs: [{ name: "app" }] }), leafRemotes: [leafRemote] })),
    ).toBe("Full");
    expect(
      chooseResolver(
        demoCluster({ auth: auth(), leafRemotes: [{ ...leafRemote, localAccountTrustRef: { name: "app" } }] }),
      ),
    ).toBe("Full");
  });

  it("is what the spec says when it says", () => {
    expect(chooseResolver(demoCluster({ auth: auth({ resolver: "Full" }), leafRemotes: [leafRemote] }))).toBe("Full");
    expect(chooseResolver(demoCluster({ auth: auth({ resolver: "Cache" }) }))).toBe("Cache");
  });
});
