import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe, reconcile } from "../../../test/support/auth-world.ts";
import type { NatsAccount, NatsUser } from "../objects.ts";

type Secret = KubeObject & { data?: Record<string, string> };
const ready = (status: unknown) =>
  (status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === "Ready",
  );

const grant = {
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsReferenceGrant",
  metadata: { name: "team-users", namespace: "auth", uid: "uid-grant" },
  spec: {
    from: [{ group: "auth.nats-operator.io", kind: "NatsUser", namespace: "team" }],
    to: [{ group: "auth.nats-operator.io", kind: "NatsAccount" }],
  },
} as KubeObject;
/** A user in namespace `team` of the account `app` in namespace `auth`. */
const bobObject = () => {
  const user = userObject("bob", { accountRef: { kind: "NatsAccount", name: "app", namespace: "auth" } });
  return { ...user, metadata: { ...user.metadata, namespace: "team" } } as KubeObject;
};

/** A world where bob is signed through the grant. */
async function grantedWorld() {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app"), grant, bobObject()]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  await world.run("NatsAccount", "app");
  const runBob = () =>
    reconcile(world.kube, { record: async () => {} }, { kind: "NatsUser", namespace: "team", name: "bob" }, new Date());
  await runBob();
  const bob = () =>
    world.kube.get<NatsUser>({
      apiVersion: "auth.nats-operator.io/v1beta1",
      kind: "NatsUser",
      namespace: "team",
      name: "bob",
    });
  const creds = async () =>
    Buffer.from(
      (await world.kube.get<Secret>({ apiVersion: "v1", kind: "Secret", namespace: "team", name: "bob-creds" }))
        ?.data?.["user.creds"] ?? "",
      "base64",
    ).toString("utf8");
  return { world, runBob, bob, creds };
}

describe("a user in another namespace whose grant goes", () => {
  it("gives its key up: revoked by its account, its creds Secret emptied, and a fresh key once granted again", async () => {
    const { world, runBob, bob, creds } = await grantedWorld();
    const key = (await bob())?.status?.publicKey;
    expect(key).toMatch(/^U/);
    expect(await creds()).toContain("NATS USER JWT");

    await world.kube.delete({ apiVersion: grant.apiVersion, kind: grant.kind, namespace: "auth", name: "team-users" });
    const read = await observe(world.kube, { kind: "NatsUser", namespace: "team", name: "bob" });
    const decision = decide(read?.observed as NonNullable<typeof read>["observed"], new Date());
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(decision.status).not.toHaveProperty("publicKey");
    expect(decision.status).toMatchObject({ replacedKeys: [{ publicKey: key }] });
    expect(decision.clearCreds).toMatchObject({ secret: "bob-creds" });
    expect(decision.events).toEqual([expect.objectContaining({ type: "Warning", reason: "ReferenceNotPermitted" })]);

    await runBob();
    expect(await creds()).toBe("");
    // The account revokes the key given up, and the user then sees it revoked.
    await world.run("NatsAccount", "app");
    const account = await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "app");
    expect(account?.status?.revocations?.map((r) => r.publicKey)).toContain(key);
    await runBob();
    expect((await bob())?.status?.replacedKeys).toBeUndefined();

    await world.kube.create(grant);
    await runBob();
    const fresh = (await bob())?.status?.publicKey;
    expect(fresh).toMatch(/^U/);
    expect(fresh).not.toBe(key);
    expect(await creds()).toContain("NATS USER JWT");
    expect(ready((await bob())?.status)).toMatchObject({ status: "True" });
  });
});

describe("a user whose new spec.publicKey another user holds", () => {
  it("is refused naming the holder, and the key it held is revoked", async () => {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      accountObject("app"),
      userObject("alice"),
      userObject("mallory"),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "app");
    await world.run("NatsUser", "alice");
    await world.run("NatsUser", "mallory");
    const get = (name: string) => world.get<NatsUser>("auth.nats-operator.io/v1beta1", "NatsUser", name);
    const alice = (await get("alice"))?.status?.publicKey;
    const own = (await get("mallory"))?.status?.publicKey;
    const mallory = (await get("mallory")) as NatsUser;
    await world.kube.replace({ ...mallory, spec: { ...mallory.spec, publicKey: alice } } as KubeObject);

    const read = await observe(world.kube, { kind: "NatsUser", namespace: "auth", name: "mallory" });
    const decision = decide(read?.observed as NonNullable<typeof read>["observed"], new Date());
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(ready(decision.status)?.message).toContain("NatsUser auth/alice, which records it in status");
    expect(decision.status).not.toHaveProperty("publicKey");
    expect(decision.status).toMatchObject({ replacedKeys: [{ publicKey: own }] });
    expect(decision.sign).toEqual([]);

    await world.run("NatsUser", "mallory");
    await world.run("NatsAccount", "app");
    const revoked = (await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "app"))?.status
      ?.revocations;
    expect(revoked?.map((r) => r.publicKey)).toContain(own);
    expect(revoked?.map((r) => r.publicKey)).not.toContain(alice);
    expect((await get("alice"))?.status?.publicKey).toBe(alice);
  });
});
