import { beforeAll, describe, expect, it } from "@jest/globals";
import { createAccount, createOperator as createOperatorKey, encodeAccount, encodeOperator } from "@nats-io/jwt";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { createOperator, type TestOperator } from "../../../test/support/nats-auth.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import type { Cluster } from "../cluster.ts";
import { judgeTrustObject, resolveTrust, type OperatorTrustObject } from "./trust.ts";
import { validateTrust } from "./trust-validation.ts";

let nats: TestOperator;
let signedByKey: TestOperator;
beforeAll(async () => {
  nats = await createOperator();
  signedByKey = await createOperator({ signingKey: true });
});

const trustObject = (
  namespace: string,
  name: string,
  spec: OperatorTrustObject["spec"],
  status?: OperatorTrustObject["status"],
): OperatorTrustObject => ({
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsOperatorTrust",
  metadata: { namespace, name },
  ...(spec ? { spec } : {}),
  ...(status ? { status } : {}),
});

const clusterWith = (trustRef: { name: string; namespace?: string }): Cluster =>
  ({
    apiVersion: "cluster.nats-operator.io/v1beta1",
    kind: "NatsCluster",
    metadata: { namespace: "apps", name: "nats" },
    spec: { version: "2.15.2", replicas: 3, auth: { trustRef } },
  }) as Cluster;

describe("trust validation", () => {
  it("accepts a system account the operator issued, and names its public key", () => {
    const result = validateTrust("t", nats.operatorJWT, nats.systemAccount.jwt);
    expect(result).toEqual({
      kind: "ready",
      operatorJWT: nats.operatorJWT,
      signers: [nats.publicKey],
      systemAccount: nats.systemAccount.publicKey,
      systemAccountJWT: nats.systemAccount.jwt,
    });
  });

  it("accepts a system account issued by one of the operator's signing keys", () => {
    expect(validateTrust("t", signedByKey.operatorJWT, signedByKey.systemAccount.jwt).kind).toBe("ready");
  });

  it("refuses an operator JWT that does not decode", () => {
    const result = validateTrust("t", "not-a-jwt", nats.systemAccount.jwt);
    expect(result).toMatchObject({ kind: "refused", reason: "TrustInvalid" });
    expect(result.kind === "refused" && result.message).toContain("operator JWT does not decode");
  });

  it("refuses an operator JWT whose signature does not verify", () => {
    const [header, , signature] = nats.operatorJWT.split(".");
    const [, body] = signedByKey.operatorJWT.split(".");
    expect(validateTrust("t", `${header}.${body}.${signature}`, nats.systemAccount.jwt)).toMatchObject({
      reason: "TrustInvalid",
    });
  });

  it("refuses an account JWT given as the operator JWT", () => {
    const result = validateTrust("t", nats.systemAccount.jwt, nats.systemAccount.jwt);
    expect(result).toMatchObject({
      kind: "refused",
      reason: "TrustInvalid",
      message: "t: the operator JWT is not an operator JWT",
    });
  });

  it("refuses an operator JWT given as the system account JWT", () => {
    expect(validateTrust("t", nats.operatorJWT, nats.operatorJWT)).toMatchObject({
      reason: "TrustInvalid",
      message: "t: the system account JWT is not an account JWT",
    });
  });

  it("refuses a system account another operator issued", () => {
    const result = validateTrust("t", nats.operatorJWT, signedByKey.systemAccount.jwt);
    expect(result).toMatchObject({ reason: "TrustInvalid" });
    expect(result.kind === "refused" && result.message).toContain("neither operator");
  });

  it("refuses a system account the operator does not name", async () => {
    const other = createAccount();
    const operatorKey = createOperatorKey();
    const operatorJWT = await encodeOperator("o", operatorKey, { system_account: createAccount().getPublicKey() });
    const accountJWT = await encodeAccount("SYS", other, {}, { signer: operatorKey });
    const result = validateTrust("t", operatorJWT, accountJWT);
    expect(result).toMatchObject({ reason: "TrustInvalid" });
    expect(result.kind === "refused" && result.message).toContain(
      `but the system account JWT is for ${other.getPublicKey()}`,
    );
  });

  it("accepts any account the operator issued when the operator names no system account", async () => {
    const operatorKey = createOperatorKey();
    const account = createAccount();
    const operatorJWT = await encodeOperator("o", operatorKey);
    const accountJWT = await encodeAccount("SYS", account, {}, { signer: operatorKey });
    expect(validateTrust("t", operatorJWT, accountJWT)).toMatchObject({
      kind: "ready",
      systemAccount: account.getPublicKey(),
    });
  });
});

describe("trust objects", () => {
  it("are not found when missing", () => {
    expect(judgeTrustObject("a", "main", undefined)).toEqual({
      kind: "refused",
      reason: "TrustNotFound",
      message: "NatsOperatorTrust a/main does not exist",
    });
  });

  it("offer their literal JWTs", () => {
    const trust = trustObject("a", "main", { operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt });
    expect(judgeTrustObject("a", "main", trust)).toMatchObject({
      kind: "ready",
      systemAccount: nats.systemAccount.publicKey,
    });
  });

  it("in the reference form, are not ready until the JWTs are mirrored into status", () => {
    const trust = trustObject("a", "main", { operatorRef: { name: "op" } });
    expect(judgeTrustObject("a", "main", trust)).toMatchObject({ kind: "refused", reason: "TrustNotReady" });
    const mirrored = trustObject(
      "a",
      "main",
      { operatorRef: { name: "op" } },
      { operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt },
    );
    expect(judgeTrustObject("a", "main", mirrored)).toMatchObject({ kind: "ready", operatorJWT: nats.operatorJWT });
  });

  it("are invalid with only one literal JWT", () => {
    expect(judgeTrustObject("a", "main", trustObject("a", "main", { operatorJWT: nats.operatorJWT }))).toMatchObject({
      reason: "TrustInvalid",
    });
  });

  it("are invalid when the mirrored JWTs do not belong together", () => {
    const trust = trustObject(
      "a",
      "main",
      { operatorRef: { name: "op" } },
      { operatorJWT: nats.operatorJWT, systemAccountJWT: signedByKey.systemAccount.jwt },
    );
    expect(judgeTrustObject("a", "main", trust)).toMatchObject({ reason: "TrustInvalid" });
  });
});

describe("resolving a trustRef", () => {
  const literal = () => ({ operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt });
  const grant = (to: { name?: string }, fromNamespace = "apps"): KubeObject =>
    ({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsReferenceGrant",
      metadata: { namespace: "trusts", name: "g" },
      spec: {
        from: [{ group: "cluster.nats-operator.io", kind: "NatsCluster", namespace: fromNamespace }],
        to: [{ group: "nats-operator.io", kind: "NatsOperatorTrust", ...to }],
      },
    }) as KubeObject;

  it("needs no grant in the NatsCluster's own namespace", async () => {
    const kube = memoryKube([trustObject("apps", "main", literal())]);
    expect(await resolveTrust(kube, clusterWith({ name: "main" }))).toMatchObject({ kind: "ready" });
  });

  it("is not found when the trust is missing", async () => {
    expect(await resolveTrust(memoryKube(), clusterWith({ name: "main" }))).toMatchObject({ reason: "TrustNotFound" });
  });

  it("refuses another namespace without a grant there, whether or not the trust exists", async () => {
    const kube = memoryKube([trustObject("trusts", "main", literal()), grant({ name: "main" }, "elsewhere")]);
    const result = await resolveTrust(kube, clusterWith({ name: "main", namespace: "trusts" }));
    expect(result).toMatchObject({ kind: "refused", reason: "NoGrant" });
    expect(await resolveTrust(memoryKube(), clusterWith({ name: "main", namespace: "trusts" }))).toMatchObject({
      reason: "NoGrant",
    });
  });

  it("follows another namespace that grants the NatsCluster the trust", async () => {
    for (const to of [{ name: "main" }, {}]) {
      const kube = memoryKube([trustObject("trusts", "main", literal()), grant(to)]);
      expect(await resolveTrust(kube, clusterWith({ name: "main", namespace: "trusts" }))).toMatchObject({
        kind: "ready",
      });
    }
  });

  it("refuses a grant that names another trust", async () => {
    const kube = memoryKube([trustObject("trusts", "main", literal()), grant({ name: "other" })]);
    expect(await resolveTrust(kube, clusterWith({ name: "main", namespace: "trusts" }))).toMatchObject({
      reason: "NoGrant",
    });
  });

  it("is undefined for a NatsCluster without auth", async () => {
    const cluster = { ...clusterWith({ name: "x" }), spec: { version: "2.15.2", replicas: 1 } } as Cluster;
    expect(await resolveTrust(memoryKube(), cluster)).toBeUndefined();
  });
});
