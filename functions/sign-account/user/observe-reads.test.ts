import { describe, expect, it } from "@jest/globals";
import { createUser } from "@nats-io/jwt";
import type { Kube, ListQuery } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, reconcile } from "../../../test/support/auth-world.ts";

/** The requests a first reconcile of `user` makes, as `verb kind name`. */
async function requestsOf(user: ReturnType<typeof userObject>): Promise<string[]> {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app"), user]);
  for (const [kind, name] of [
    ["NatsSystemAccount", "sys"],
    ["NatsOperator", "main"],
    ["NatsAccount", "app"],
  ] as const)
    await world.run(kind, name);
  const kube = world.kube as Kube;
  const requests: string[] = [];
  const counting: Kube = {
    ...kube,
    get: (key) => (requests.push(`get ${key.kind} ${key.name}`), kube.get(key)),
    list: (query: ListQuery) => (requests.push(`list ${query.kind}`), kube.list(query)),
    create: (object) => (requests.push(`create ${object.kind} ${object.metadata.name}`), kube.create(object)),
    replaceStatus: (object, manager) => (
      requests.push(`status ${object.kind} ${object.metadata.name}`),
      kube.replaceStatus(object, manager)
    ),
    patch: (key, body, type) => (requests.push(`patch ${key.kind} ${key.name}`), kube.patch(key, body, type)),
  };
  const done = await reconcile(
    counting,
    { record: async () => {} },
    { kind: "NatsUser", namespace: "auth", name: user.metadata.name },
    new Date(),
  );
  expect(done.kind).toBe("done");
  return requests;
}

describe("a new user's reconcile", () => {
  it("reads its account and the account's keys, and lists no other user, for a generated key", async () => {
    expect(await requestsOf(userObject("alice"))).toEqual([
      "get NatsUser alice",
      "get Secret alice-creds",
      "get NatsAccount app",
      "get Secret app-account-identity",
      "get Secret app-account-signing-1",
      "create Secret alice-creds",
      "status NatsUser alice",
      "patch NatsUser alice",
    ]);
  });

  it("lists the users for a key named in spec.publicKey, which another user may hold", async () => {
    const requests = await requestsOf(userObject("bob", { publicKey: createUser().getPublicKey() }));
    expect(requests).toContain("list NatsUser");
  });
});
