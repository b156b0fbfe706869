import { beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../../test/support/nats-auth.ts";
import { judgeAccountTrust, mergePreloads, type AccountTrustObject } from "./account-trust.ts";
import type { Cluster } from "../cluster.ts";
import { resolveTrust } from "./trust.ts";

let nats: TestOperator;
let stranger: TestOperator;
let app: SignedAccount;
let other: SignedAccount;
beforeAll(async () => {
  nats = await createOperator();
  stranger = await createOperator();
  app = await nats.signAccount("app", { jetstream: true });
  other = await nats.signAccount("other");
});

const accountTrust = (
  namespace: string,
  name: string,
  spec: AccountTrustObject["spec"],
  status?: AccountTrustObject["status"],
): AccountTrustObject => ({
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsAccountTrust",
  metadata: { namespace, name },
  ...(spec ? { spec } : {}),
  ...(status ? { status } : {}),
});
const signers = () => [nats.publicKey];

describe("account trusts", () => {
  it("preload a literal account JWT the operator issued", () => {
    expect(
      judgeAccountTrust("a", "app", accountTrust("a", "app", { publicKey: app.publicKey, jwt: app.jwt }), signers()),
    ).toEqual({ kind: "ready", publicKey: app.publicKey, jwt: app.jwt });
  });

  it("are not found when missing", () => {
    expect(judgeAccountTrust("a", "app", undefined, signers())).toMatchObject({
      reason: "AccountTrustNotFound",
      message: "NatsAccountTrust a/app does not exist",
    });
  });

  it("are invalid in the literal form without a JWT, and not ready in the reference form until it is mirrored", () => {
    expect(
      judgeAccountTrust("a", "app", accountTrust("a", "app", { publicKey: app.publicKey }), signers()),
    ).toMatchObject({ reason: "AccountTrustInvalid" });
    expect(
      judgeAccountTrust("a", "app", accountTrust("a", "app", { accountRef: { name: "app" } }), signers()),
    ).toMatchObject({ reason: "AccountTrustNotReady" });
    const mirrored = accountTrust(
      "a",
      "app",
      { accountRef: { name: "app" } },
      { publicKey: app.publicKey, jwt: app.jwt },
    );
    expect(judgeAccountTrust("a", "app", mirrored, signers())).toMatchObject({
      kind: "ready",
      publicKey: app.publicKey,
    });
  });

  it("are invalid when the JWT is for another key, no account JWT, or issued by another operator", async () => {
    expect(
      judgeAccountTrust("a", "app", accountTrust("a", "app", { publicKey: other.publicKey, jwt: app.jwt }), signers()),
    ).toMatchObject({ reason: "AccountTrustInvalid" });
    expect(
      judgeAccountTrust(
        "a",
        "app",
        accountTrust("a", "app", { publicKey: app.publicKey, jwt: nats.operatorJWT }),
        signers(),
      ),
    ).toMatchObject({ reason: "AccountTrustInvalid" });
    const foreign = await stranger.signAccount("app");
    const result = judgeAccountTrust(
      "a",
      "app",
      accountTrust("a", "app", { publicKey: foreign.publicKey, jwt: foreign.jwt }),
      signers(),
    );
    expect(result).toMatchObject({ reason: "AccountTrustInvalid" });
    expect(result.kind === "refused" && result.message).toContain("neither the operator nor one of its signing keys");
  });

  it("preload each account once, and refuse two different JWTs for one account", async () => {
    const system = nats.systemAccount;
    const once = { kind: "ready" as const, publicKey: app.publicKey, jwt: app.jwt };
    expect(mergePreloads(system, [once, once])).toEqual({
      kind: "ready",
      preload: { [system.publicKey]: system.jwt, [app.publicKey]: app.jwt },
    });
    const resigned = { ...once, jwt: other.jwt };
    expect(mergePreloads(system, [once, resigned])).toMatchObject({
      reason: "AccountTrustInvalid",
      message: `two different JWTs are given for account ${app.publicKey}`,
    });
    expect(mergePreloads(system, [{ kind: "ready", publicKey: system.publicKey, jwt: app.jwt }])).toMatchObject({
      reason: "AccountTrustInvalid",
      message: "two different JWTs are given for the system account",
    });
  });
});

describe("resolving accountTrustRefs beside the trustRef", () => {
  const cluster = (accountTrustRefs: { name: string; namespace?: string }[]): Cluster =>
    ({
      apiVersion: "cluster.nats-operator.io/v1beta1",
      kind: "NatsCluster",
      metadata: { namespace: "apps", name: "nats" },
      spec: { version: "2.15.2", replicas: 1, auth: { trustRef: { name: "main" }, accountTrustRefs } },
    }) as Cluster;
  const operatorTrust = (): KubeObject =>
    ({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsOperatorTrust",
      metadata: { namespace: "apps", name: "main" },
      spec: { operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt },
    }) as KubeObject;

  it("adds the accounts to the ready trust", async () => {
    const kube = memoryKube([operatorTrust(), accountTrust("apps", "app", { publicKey: app.publicKey, jwt: app.jwt })]);
    expect(await resolveTrust(kube, cluster([{ name: "app" }, { name: "app" }]))).toMatchObject({
      kind: "ready",
      accounts: { [app.publicKey]: app.jwt },
    });
  });

  it("is refused while an account trust is refused, or in another namespace without a grant", async () => {
    expect(await resolveTrust(memoryKube([operatorTrust()]), cluster([{ name: "app" }]))).toMatchObject({
      kind: "refused",
      reason: "AccountTrustNotFound",
    });
    const kube = memoryKube([
      operatorTrust(),
      accountTrust("shared", "app", { publicKey: app.publicKey, jwt: app.jwt }),
    ]);
    expect(await resolveTrust(kube, cluster([{ name: "app", namespace: "shared" }]))).toMatchObject({
      kind: "refused",
      reason: "NoGrant",
    });
  });
});
