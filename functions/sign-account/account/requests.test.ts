import { describe, expect, it } from "@jest/globals";
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, reconcileWithDependents } from "../../../test/support/auth-world.ts";
import { countingKube } from "../../../test/support/counting-kube.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const AUTH = "auth.nats-operator.io/v1beta1";

/** The operator, its system account and `n` accounts of two users each, all signed. */
async function installation(n: number, unsigned: string[] = []) {
  const accounts = Array.from({ length: n }, (_, i) => `app-${i}`);
  const users = accounts.flatMap((a) => [`${a}-alice`, `${a}-bob`]);
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    ...[...accounts, ...unsigned].map((a) => accountObject(a)),
    ...users.map((u) => userObject(u, { accountRef: { kind: "NatsAccount", name: u.replace(/-(alice|bob)$/, "") } })),
  ]);
  await world.run("NatsSystemAccount", "sys", NOW);
  await world.run("NatsOperator", "main", NOW);
  for (const a of accounts) await world.run("NatsAccount", a, NOW);
  for (const u of users) await world.run("NatsUser", u, NOW);
  return world;
}

/** One delivery of account `name` (its reconcile and the dependents it names): its listings, and the objects they returned. */
async function deliveryOf(world: Awaited<ReturnType<typeof installation>>, name: string) {
  const counting = countingKube(world.kube as Kube);
  const { reconciled } = await reconcileWithDependents(
    counting.kube,
    { kind: "NatsAccount", namespace: "auth", name },
    NOW,
  );
  expect(reconciled.kind).toBe("done");
  return { lists: counting.requests.filter((r) => r.startsWith("list ")), listed: counting.listed() };
}

describe("an account's reconcile reads what concerns it, not the installation", () => {
  it("lists only the accounts recording its key and its own users, by field selector, at rest", async () => {
    const { lists } = await deliveryOf(await installation(3), "app-1");
    expect(lists).toEqual([
      "list NatsUser fields spec.accountRef.name=app-1",
      expect.stringMatching(/^list NatsAccount fields spec\.operatorRef\.name=main,status\.publicKey=A[A-Z2-7]{55}$/),
      "list NatsAccountTrust fields spec.accountRef.name=app-1",
    ]);
  });

  it("reads as many objects for one account among 20 as among 2", async () => {
    const few = await deliveryOf(await installation(2), "app-1");
    const many = await deliveryOf(await installation(20), "app-1");
    expect(many.lists).toHaveLength(few.lists.length);
    // Its own two users, and itself among the accounts recording its key.
    expect(few.listed).toBe(3);
    expect(many.listed).toBe(few.listed);
  });

  it("asks, for a new account with generated keys, only for the unkeyed accounts whose identity seed is in a Secret they name", async () => {
    const world = await installation(3, ["fresh"]);
    const counting = countingKube(world.kube as Kube);
    await reconcileWithDependents(counting.kube, { kind: "NatsAccount", namespace: "auth", name: "fresh" }, NOW);
    expect(counting.requests).toContain(
      "list NatsAccount fields spec.operatorRef.name=main,status.publicKey=,spec.keys.identity.secretKeyRef.name!=",
    );
    // The one listing of every account looks for its importers, which its new key concerns.
    expect(counting.requests.filter((r) => r === "list NatsAccount")).toHaveLength(1);
  });

  it("does not look for its importers after a change none of them reads (limits)", async () => {
    const world = await installation(2);
    const account = await world.get<KubeObject & { spec: object }>(AUTH, "NatsAccount", "app-1");
    if (!account) throw new Error("app-1 is gone");
    await world.kube.replace({ ...account, spec: { ...account.spec, limits: { connections: 5 } } });
    const { lists } = await deliveryOf(world, "app-1");
    // No listing of every account: importers read its key, exports and signing keys, none of which changed.
    expect(lists.filter((l) => l === "list NatsAccount")).toEqual([]);
  });

  it("names its importers, found by listing every account, when an export changes", async () => {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      accountObject("orders", { exports: [{ name: "events", type: "Stream", subject: "orders.events.>" }] }),
      accountObject("shop", { imports: [{ accountRef: { kind: "NatsAccount", name: "orders" }, export: "events" }] }),
    ]);
    for (const [kind, name] of [
      ["NatsSystemAccount", "sys"],
      ["NatsOperator", "main"],
      ["NatsAccount", "orders"],
      ["NatsAccount", "shop"],
    ] as const)
      await world.run(kind, name, NOW);
    const orders = (await world.get<KubeObject & { spec: object }>(AUTH, "NatsAccount", "orders")) as KubeObject & {
      spec: object;
    };
    const limited = { ...orders, spec: { ...orders.spec, limits: { connections: 5 } } };
    await world.kube.replace(limited);
    const key = { kind: "NatsAccount" as const, namespace: "auth", name: "orders" };
    const importers = (dependents: { kind: string; name: string }[]) =>
      dependents.filter((d) => d.kind === "NatsAccount").map((d) => d.name);
    expect(importers((await reconcileWithDependents(world.kube as Kube, key, NOW)).dependents)).toEqual([]);
    const current = (await world.get<KubeObject & { spec: object }>(AUTH, "NatsAccount", "orders")) as typeof limited;
    const exports = [{ name: "events", type: "Stream", subject: "orders.events.*" }];
    await world.kube.replace({ ...current, spec: { ...current.spec, exports } });
    expect(importers((await reconcileWithDependents(world.kube as Kube, key, NOW)).dependents)).toEqual(["shop"]);
  });
});
