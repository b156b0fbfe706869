import { describe, expect, it } from "@jest/globals";
import { createUser } from "@nats-io/jwt";
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import { apiServerEvent } from "../../../shared/local/apiserver-event.ts";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authDeliveries, tally } from "../../../test/support/auth-deliveries.ts";
import { authWorld } from "../../../test/support/auth-world.ts";

/** An operator, its system account and account `app`, signed; then NatsUser alice applied, and every event that leads to. */
async function newUser() {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app")]);
  for (const [kind, name] of [
    ["NatsSystemAccount", "sys"],
    ["NatsOperator", "main"],
    ["NatsAccount", "app"],
  ] as const)
    await world.run(kind, name);
  const deliveries = authDeliveries(world.kube as Kube);
  const created = await world.kube.create(userObject("alice"));
  const settled = await deliveries.settle(apiServerEvent("https://unit", "Resource", "add", created));
  const user = await world.get<KubeObject & { status?: { inputs?: Record<string, string>; conditions?: unknown[] } }>(
    "auth.nats-operator.io/v1beta1",
    "NatsUser",
    "alice",
  );
  return { ...settled, user };
}

// Unit-world counts (docs/benchmarks.md): every request a new user costs, through the runtime's
// dispatch and the events its own writes cause, until none is left.
describe("a new user to Ready", () => {
  it("writes its creds Secret, its status and its finalizer, and nothing after", async () => {
    const { requests, answers, user } = await newUser();
    expect(tally(requests).writes).toEqual([
      "create Secret alice-creds",
      "status NatsUser alice",
      "patch NatsUser alice",
    ]);
    expect(user?.status?.conditions).toContainEqual(expect.objectContaining({ type: "Ready", status: "True" }));
    // The echoes of those writes: the status and finalizer echoes dropped without a request, the
    // Secret's (Reference mode) recognised by its digest after one read.
    expect(answers).toEqual([
      "NatsUser alice: done",
      "Secret alice-creds: skipped",
      "NatsUser alice: skipped",
      "NatsUser alice: skipped",
    ]);
  });

  it("reads itself, its creds Secret, its account and the account's seeds, and the Secret's echo: six reads", async () => {
    const { requests } = await newUser();
    expect(tally(requests).reads).toEqual([
      "get NatsUser alice",
      "get Secret alice-creds",
      "get NatsAccount app",
      "get Secret app-account-identity",
      "get Secret app-account-signing-1",
      "get Secret alice-creds",
    ]);
  });

  it("carries the record of what it read in its status write, not in a write of its own", async () => {
    const { requests, user } = await newUser();
    expect(requests.filter((r) => r === "status NatsUser alice")).toHaveLength(1);
    expect(user?.status?.inputs?.["sign-account"]).toMatch(/^[0-9a-f]{16} /);
  });

  it("names its dependents from what its reconcile left, without reading itself again", async () => {
    const { requests } = await newUser();
    expect(requests.filter((r) => r === "get NatsUser alice")).toHaveLength(1);
  });

  it("asks, for a key named in spec.publicKey, only for the users of its account recording or naming that key", async () => {
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app")]);
    for (const [kind, name] of [
      ["NatsSystemAccount", "sys"],
      ["NatsOperator", "main"],
      ["NatsAccount", "app"],
    ] as const)
      await world.run(kind, name);
    const key = createUser().getPublicKey();
    const deliveries = authDeliveries(world.kube as Kube);
    const created = await world.kube.create(userObject("carol", { publicKey: key }));
    const { requests } = await deliveries.settle(apiServerEvent("https://unit", "Resource", "add", created));
    expect(requests.filter((r) => r.startsWith("list "))).toEqual([
      `list NatsUser fields spec.accountRef.name=app,status.publicKey=${key}`,
      `list NatsUser fields spec.accountRef.name=app,spec.publicKey=${key}`,
    ]);
  });
});
