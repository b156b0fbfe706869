import { describe, expect, it } from "@jest/globals";
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, reconcileWithDependents } from "../../../test/support/auth-world.ts";
import type { NatsAccount } from "../objects.ts";
import { signAccount } from "../index.ts";
import { userView, userViewOfAccount } from "./user-view.ts";

const AUTH = "auth.nats-operator.io/v1beta1";
const NOW = new Date("2026-12-03T10:00:00.000Z");
const APP = { kind: "NatsAccount" as const, namespace: "auth", name: "app" };
const users = (dependents: readonly { kind: string; name: string }[]) =>
  dependents.filter((d) => d.kind === "NatsUser").map((d) => d.name);

/** The operator, its system account, account `app` (signing keys as given) and its users alice and bob, all signed. */
async function signedApp(spec: Record<string, unknown> = {}) {
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    accountObject("app", spec),
    userObject("alice"),
    userObject("bob"),
  ]);
  for (const [kind, name] of [
    ["NatsSystemAccount", "sys"],
    ["NatsOperator", "main"],
    ["NatsAccount", "app"],
    ["NatsUser", "alice"],
    ["NatsUser", "bob"],
  ] as const)
    await world.run(kind, name, NOW);
  const app = async () => (await world.get<NatsAccount>(AUTH, "NatsAccount", "app")) as NatsAccount;
  const edit = async (spec: Record<string, unknown>) => {
    const object = await app();
    await world.kube.replace({ ...object, spec: { ...object.spec, ...spec } } as KubeObject);
  };
  return { world, app, edit, deliver: () => reconcileWithDependents(world.kube as Kube, APP, NOW) };
}

describe("an account's users are reconciled after it only when what they read of it changed", () => {
  it("leaves the users out after a limit change, which re-signs the account JWT (and lists no user)", async () => {
    const { world, app, edit, deliver } = await signedApp();
    const before = await app();
    await edit({ limits: { connections: 5 } });
    let listed = 0;
    const counting: Kube = {
      ...(world.kube as Kube),
      list: (query) => {
        if (query.kind === "NatsUser") listed++;
        return (world.kube as Kube).list(query);
      },
    };
    const { reconciled, dependents } = await reconcileWithDependents(counting, APP, NOW);
    expect(reconciled.kind).toBe("done");
    expect((await app()).status?.jwt).not.toBe(before.status?.jwt);
    expect(users(dependents)).toEqual([]);
    // Nor does the resync sweep deliver them: what each recorded of the account is unchanged.
    expect(userViewOfAccount.version(await app())).toBe(userViewOfAccount.version(before));
    expect(signAccount.inputFacets).toContain(userViewOfAccount);
    // Only observe's listing (the revocations of deleted users): none for the dependents.
    expect(listed).toBe(1);
    void deliver;
  });

  it("names the users when the account's signing keys change", async () => {
    const { world, app, edit, deliver } = await signedApp();
    const object = await app();
    await world.kube.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "extra-signing", namespace: "auth" },
      data: { seed: Buffer.from(await freshAccountSeed()).toString("base64") },
    } as KubeObject);
    await edit({
      keys: {
        ...object.spec.keys,
        signing: [
          { name: "signing-1", secretKeyRef: { name: "app-account-signing-1", key: "seed" } },
          { name: "extra", secretKeyRef: { name: "extra-signing", key: "seed" } },
        ],
      },
    });
    const { dependents, reconciled } = await deliver();
    expect(reconciled.kind).toBe("done");
    expect(users(dependents).sort()).toEqual(["alice", "bob"]);
  });

  it("names the users when the account's Ready changes, or while a signing key retires or it is deleted", async () => {
    const { app } = await signedApp();
    const object = await app();
    const view = userView(object);
    expect(view).toBeDefined();
    const conditions = (object.status?.conditions ?? []).map((c) =>
      c.type === "Ready" ? { ...c, status: "False" as const, reason: "SeedLost" } : c,
    );
    expect(userView({ ...object, status: { ...object.status, conditions } })).not.toBe(view);
    expect(userView({ ...object, status: { ...object.status, publicKey: "AOTHER" } })).not.toBe(view);
    expect(
      userView({
        ...object,
        spec: {
          ...object.spec,
          keys: { signing: [{ name: "s", secretKeyRef: { name: "s", key: "seed" }, retiring: true }] },
        },
      }),
    ).toBeUndefined();
    expect(
      userView({ ...object, metadata: { ...object.metadata, deletionTimestamp: NOW.toISOString() } }),
    ).toBeUndefined();
    // What users never read: limits, exports, the JWT's issue time.
    expect(userView({ ...object, spec: { ...object.spec, limits: { connections: 1 }, jwtTTL: "1h" } })).toBe(view);
  });
});

async function freshAccountSeed(): Promise<string> {
  const { createAccount } = await import("@nats-io/jwt");
  return new TextDecoder().decode(createAccount().getSeed());
}
