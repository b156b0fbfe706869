import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, dependentsOf, observe } from "../../../test/support/auth-world.ts";
import type { NatsAccount, NatsAccountTrust } from "../objects.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");

const accountTrust = (spec: Record<string, unknown>, name = "app"): KubeObject =>
  ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsAccountTrust",
    metadata: { name, namespace: "auth", uid: `uid-trust-${name}`, generation: 1 },
    spec,
  }) as KubeObject;

const conditionOf = (status: unknown, type: string) =>
  (status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === type,
  );

async function decisionFor(world: ReturnType<typeof authWorld>, name = "app") {
  const read = await observe(world.kube, { kind: "NatsAccountTrust", namespace: "auth", name });
  if (!read) throw new Error("no trust");
  return decide(read.observed, NOW);
}

describe("a NatsAccountTrust in reference form", () => {
  it("mirrors the public key and JWT of its NatsAccount once the account is signed", async () => {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      accountObject("app"),
      accountTrust({ accountRef: { name: "app" } }),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "app");
    expect((await world.run("NatsAccountTrust", "app")).kind).toBe("done");
    const account = await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "app");
    const trust = await world.get<NatsAccountTrust>("nats-operator.io/v1beta1", "NatsAccountTrust", "app");
    expect(trust?.status?.publicKey).toBe(account?.status?.publicKey);
    expect(trust?.status?.jwt).toBe(account?.status?.jwt);
    expect(conditionOf(trust?.status, "Ready")).toMatchObject({ status: "True", reason: "Mirrored" });
  });

  it("is reconciled after its account, so a re-signed JWT reaches it in the same delivery", async () => {
    const world = authWorld([accountObject("app"), accountTrust({ accountRef: { name: "app" } })]);
    expect(await dependentsOf(world.kube, { kind: "NatsAccount", namespace: "auth", name: "app" })).toContainEqual({
      kind: "NatsAccountTrust",
      namespace: "auth",
      name: "app",
    });
  });

  it("holds nothing while its account is not signed yet (Pending), and names a missing account", async () => {
    const pending = await decisionFor(
      authWorld([
        operatorObject(),
        systemAccountObject(),
        accountObject("app"),
        accountTrust({ accountRef: { name: "app" } }),
      ]),
    );
    expect(conditionOf(pending.status, "Ready")).toMatchObject({ status: "False", reason: "Pending" });
    expect(pending.status).not.toHaveProperty("jwt");
    const missing = await decisionFor(authWorld([accountTrust({ accountRef: { name: "gone" } })]));
    expect(conditionOf(missing.status, "Ready")).toMatchObject({
      status: "False",
      reason: "ReferenceNotFound",
      message: "NatsAccount auth/gone does not exist",
    });
  });

  it("is refused for an account in another namespace without a NatsReferenceGrant, and clears what it held", async () => {
    const trust = {
      ...accountTrust({ accountRef: { name: "app", namespace: "elsewhere" } }),
      status: { publicKey: "AOLD", jwt: "old.jwt" },
    } as KubeObject;
    const decision = await decisionFor(authWorld([trust]));
    expect(conditionOf(decision.status, "Ready")).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(decision.status).not.toHaveProperty("jwt");
    expect(decision.status).not.toHaveProperty("publicKey");
  });

  it("writes no status in the literal form", async () => {
    const decision = await decisionFor(authWorld([accountTrust({ publicKey: "ALITERAL" })]));
    expect(decision.status).toEqual({});
    expect(decision.summary).toContain("literal form");
  });
});
