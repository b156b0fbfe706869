import { describe, expect, it } from "@jest/globals";
import type { Kube } from "../../../shared/kube/index.ts";
import type { KubeObject, ObjectKey } from "../../../shared/kube/object.ts";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, observe } from "../../../test/support/auth-world.ts";
import type { NatsAccount } from "../objects.ts";
import type { AccountObserved } from "../account/types.ts";

const AUTH = "auth.nats-operator.io/v1beta1";

/** A world of the operator, its system account, `keyed` signed accounts and `waiting` ones never reconciled. */
async function accounts(keyed: number, waiting: number) {
  const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    ...[...names("keyed", keyed), ...names("waiting", waiting)].map((n) => accountObject(n)),
  ]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  for (const name of names("keyed", keyed)) await world.run("NatsAccount", name);
  // Each waiting account holds a generated seed (as a first pass leaves it), not yet recorded.
  for (const name of names("waiting", waiting)) {
    await world.run("NatsAccount", name);
    const object = (await world.get<NatsAccount>(AUTH, "NatsAccount", name)) as NatsAccount;
    await world.kube.replaceStatus({ ...object, status: {} } as KubeObject);
  }
  return world;
}

/** The Secrets an observe of `name` reads, by name. */
async function secretsRead(kube: Kube, name: string): Promise<string[]> {
  const read: string[] = [];
  const counting: Kube = {
    ...kube,
    get: <T extends KubeObject>(key: ObjectKey) => {
      if (key.kind === "Secret") read.push(key.name);
      return kube.get<T>(key);
    },
  };
  await observe(counting, { kind: "NatsAccount", namespace: "auth", name });
  return read.sort();
}

describe("an account's key check reads the seeds of other accounts only where they can outrank its claim", () => {
  it("reads no other account's Secret for an account that recorded its key, however many wait", async () => {
    const world = await accounts(1, 5);
    const read = await secretsRead(world.kube as Kube, "keyed-0");
    expect(read).toEqual([
      "keyed-0-account-identity",
      "keyed-0-account-signing-1",
      "main-operator-identity",
      "main-operator-signing-1",
    ]);
  });

  it("reads no other account's generated seed for a new account with a generated seed", async () => {
    const world = await accounts(2, 5);
    const read = await secretsRead(world.kube as Kube, "waiting-0");
    expect(read.filter((s) => !s.startsWith("waiting-0-") && !s.startsWith("main-"))).toEqual([]);
  });

  it("reads the unrecorded accounts' seeds for an account whose key is only named in spec", async () => {
    const world = await accounts(1, 2);
    const first = (await world.get<NatsAccount>(AUTH, "NatsAccount", "waiting-0")) as NatsAccount;
    const seeded = (await observe(world.kube as Kube, { kind: "NatsAccount", namespace: "auth", name: "waiting-1" }))
      ?.observed as AccountObserved;
    const key = seeded.keys.identity?.state.kind === "ready" ? seeded.keys.identity.state.publicKey : "";
    await world.kube.replace({ ...first, spec: { ...first.spec, publicKey: key } } as KubeObject);
    const read = await secretsRead(world.kube as Kube, "waiting-0");
    expect(read).toEqual(expect.arrayContaining(["waiting-1-account-identity"]));
    const decided = (await observe(world.kube as Kube, { kind: "NatsAccount", namespace: "auth", name: "waiting-0" }))
      ?.observed as AccountObserved;
    expect(decided.others).toContainEqual(expect.objectContaining({ holder: "NatsAccount auth/waiting-1", seed: key }));
  });
});
