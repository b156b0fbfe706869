import { describe, expect, it, jest } from "@jest/globals";
import { Algorithms, createAccount, createOperator, encode, type ClaimsData } from "@nats-io/jwt";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../../test/support/auth-world.ts";
import type { DistributionReading } from "../servers/types.ts";
import type { NatsAccount, NatsSystemAccount } from "../objects.ts";
import { foreignJwt } from "./adoption.ts";
import type { AccountObserved } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const AUTH = "auth.nats-operator.io/v1beta1";
const ready = (status: unknown) =>
  (status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === "Ready",
  );
const read = (holdings: string[]) =>
  ({ kind: "read", roster: ["NA", "NB", "NC"], polledAt: NOW.toISOString(), holdings }) as DistributionReading;

/** An older account `first` and a newer `second`, both signed, and the system account. */
async function twoAccounts() {
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    accountObject("first", {}, "2026-01-02T00:00:00Z"),
    accountObject("second", {}, "2026-02-02T00:00:00Z"),
  ]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  await world.run("NatsAccount", "first");
  await world.run("NatsAccount", "second");
  const account = (name: string) => world.get<NatsAccount>(AUTH, "NatsAccount", name);
  /** Sets spec.publicKey of `name`, as a tenant's patch would. */
  const name = async (who: string, publicKey: string | undefined) => {
    const object = (await account(who)) as NatsAccount;
    await world.kube.replace({ ...object, spec: { ...object.spec, publicKey } } as KubeObject);
  };
  const decisionOf = async (kind: "NatsAccount" | "NatsSystemAccount", who: string) => {
    const got = await observe(world.kube, { kind, namespace: "auth", name: who });
    return decide(got?.observed as NonNullable<typeof got>["observed"], NOW);
  };
  return { world, account, name, decisionOf };
}

describe("an account key belongs to whoever recorded it first", () => {
  it("refuses the older account switching to the newer one's key, and keeps its own key and JWT", async () => {
    const { account, name, decisionOf } = await twoAccounts();
    const before = (await account("first"))?.status;
    const victim = (await account("second"))?.status?.publicKey as string;
    await name("first", victim);
    const decision = await decisionOf("NatsAccount", "first");
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(ready(decision.status)?.message).toContain("NatsAccount auth/second, which records it in status");
    expect(decision.sign).toEqual([]);
    expect(decision.push).toBeUndefined();
    expect(decision.status).toMatchObject({ publicKey: before?.publicKey, jwt: before?.jwt });
    expect(decision.events).toEqual([expect.objectContaining({ type: "Warning", reason: "PublicKeyInUse" })]);
    // The newer one keeps it, its JWT unchanged.
    const kept = await decisionOf("NatsAccount", "second");
    expect(ready(kept.status)).toMatchObject({ status: "True" });
    expect(kept.sign).toEqual([]);
  });

  it("refuses an account naming the system account's key, whether recorded or only held in its seed Secret", async () => {
    const { world, name, decisionOf } = await twoAccounts();
    const system = await world.get<NatsSystemAccount>(AUTH, "NatsSystemAccount", "sys");
    await name("first", system?.status?.publicKey);
    const decision = await decisionOf("NatsAccount", "first");
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(ready(decision.status)?.message).toContain("NatsSystemAccount auth/sys");
    // With its status lost, the seed Secret still holds the key.
    await world.kube.replaceStatus({ ...(system as NatsSystemAccount), status: {} } as KubeObject);
    const operator = await world.get<KubeObject>(AUTH, "NatsOperator", "main");
    await world.kube.replaceStatus({ ...(operator as KubeObject), status: {} } as KubeObject);
    const again = await decisionOf("NatsAccount", "first");
    expect(ready(again.status)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(ready(again.status)?.message).toContain("NatsSystemAccount auth/sys, which holds its seed");
  });

  it("refuses a system account naming a NatsAccount's key", async () => {
    const { world, account, decisionOf } = await twoAccounts();
    const victim = (await account("second"))?.status?.publicKey;
    const system = (await world.get<NatsSystemAccount>(AUTH, "NatsSystemAccount", "sys")) as NatsSystemAccount;
    await world.kube.replace({ ...system, spec: { ...system.spec, publicKey: victim } } as KubeObject);
    const decision = await decisionOf("NatsSystemAccount", "sys");
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(ready(decision.status)?.message).toContain("NatsAccount auth/second");
    expect(decision.status).toMatchObject({ publicKey: system.status?.publicKey });
  });

  it("keeps a key for a newer account holding its seed, not yet recorded, from an older one naming it", async () => {
    const { world, account, name, decisionOf } = await twoAccounts();
    const second = (await account("second")) as NatsAccount;
    const seeded = second.status?.publicKey;
    await world.kube.replaceStatus({ ...second, status: {} } as KubeObject);
    await name("first", seeded);
    const decision = await decisionOf("NatsAccount", "first");
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(ready(decision.status)?.message).toContain("NatsAccount auth/second, which holds its seed");
  });
});

describe("the takeover check on every signing", () => {
  const SIGNER = createOperator();
  /** A JWT for `sub` made elsewhere `later` seconds from now, carrying an export. */
  const madeElsewhere = async (sub: string, later: number) => {
    const now = Date.now();
    const clock = jest.spyOn(Date, "now").mockReturnValue(now + later * 1000);
    try {
      return await encode(
        Algorithms.v2,
        {
          name: "elsewhere",
          sub,
          nats: { type: "account", version: 2, exports: [{ name: "x", subject: "x.>", type: "stream" }] },
        } as unknown as ClaimsData<unknown>,
        SIGNER,
      );
    } finally {
      clock.mockRestore();
    }
  };

  it("finds a JWT of the identity issued after the account's own, and none older or its own", async () => {
    const { account } = await twoAccounts();
    const status = (await account("first"))?.status;
    const key = status?.publicKey as string;
    const own = status?.jwt as string;
    const newer = await madeElsewhere(key, 60);
    const older = await madeElsewhere(key, -60);
    expect(foreignJwt(read([own, newer, older]), key, own)).toBe(newer);
    expect(foreignJwt(read([own, older, ""]), key, own)).toBeUndefined();
    expect(foreignJwt(read([await madeElsewhere("AOTHER", 60)]), key, own)).toBeUndefined();
  });

  it("refuses a re-signing that would drop the claims of a JWT the servers got from elsewhere since", async () => {
    const { account, world } = await twoAccounts();
    const first = (await account("first")) as NatsAccount;
    const key = first.status?.publicKey as string;
    await world.kube.replace({ ...first, spec: { ...first.spec, limits: { connections: 5 } } } as KubeObject);
    const got = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "first" });
    const observed = got?.observed as AccountObserved;
    const foreign = await madeElsewhere(key, 60);
    const decision = decide({ ...observed, distribution: read([foreign, foreign, foreign]) }, NOW);
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "AdoptionDropsClaims" });
    expect(ready(decision.status)?.message).toContain("exports[0]");
    expect(decision.sign).toEqual([]);
    // Its own JWT on every server: signed as usual.
    const own = first.status?.jwt as string;
    const usual = decide({ ...observed, distribution: read([own, own, own]) }, NOW);
    expect(usual.sign).toHaveLength(1);
  });

  it("judges a new spec.publicKey against the JWT the servers hold for it, made elsewhere", async () => {
    const { account, name, world } = await twoAccounts();
    const outside = createAccount().getPublicKey();
    await name("first", outside);
    const got = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "first" });
    const observed = got?.observed as AccountObserved;
    const held = await madeElsewhere(outside, -60);
    const before = (await account("first"))?.status;
    const decision = decide(
      { ...observed, distribution: read([before?.jwt ?? ""]), candidate: read([held, held, held]) },
      NOW,
    );
    expect(ready(decision.status)).toMatchObject({ status: "False", reason: "AdoptionDropsClaims" });
    expect(decision.status).toMatchObject({ publicKey: before?.publicKey });
    expect(decision.sign).toEqual([]);
  });
});
