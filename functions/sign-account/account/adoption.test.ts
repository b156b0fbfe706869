import { describe, expect, it, jest } from "@jest/globals";
import { Algorithms, createAccount, createOperator, encode, type ClaimsData } from "@nats-io/jwt";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../../test/support/auth-world.ts";
import { droppedClaims, inexpressibleTiers } from "./adoption.ts";
import type { AccountDecision, Decision } from "../decision.ts";
import type { NatsAccount } from "../objects.ts";
import type { AccountObserved } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const ROSTER = ["NA", "NB", "NC"];
const SIGNER = createOperator();

/** A JWT made elsewhere (by nsc, say) for account `sub` carrying `nats`. */
const heldJwt = (sub: string, nats: Record<string, unknown>) =>
  encode(
    Algorithms.v2,
    { name: "orders", sub, nats: { type: "account", version: 2, ...nats } } as unknown as ClaimsData<unknown>,
    SIGNER,
  );

/** What nsc writes into every account JWT, none of which a NatsAccount drops. */
const NSC_DEFAULTS = {
  authorization: {},
  default_permissions: { pub: {}, sub: {} },
  limits: {
    conn: -1,
    consumer: -1,
    data: -1,
    disk_max_stream_bytes: -1,
    exports: -1,
    imports: -1,
    leaf: -1,
    max_ack_pending: -1,
    mem_max_stream_bytes: -1,
    payload: -1,
    streams: -1,
    subs: -1,
    wildcards: true,
  },
};
const ORDERS_EXPORT = {
  name: "orders-events",
  subject: "orders.events.>",
  type: "stream",
  description: "what nsc wrote",
};

describe("the claims a takeover would drop", () => {
  const account = createAccount().getPublicKey();
  const signed = { limits: { conn: 20, subs: -1, data: -1, payload: -1, wildcards: true }, signing_keys: ["AKEY"] };

  it("are none for nsc's defaults: empty permissions, unlimited limits and a limit set to another value", async () => {
    expect(droppedClaims(await heldJwt(account, { ...NSC_DEFAULTS, signing_keys: ["AKEY"] }), signed)).toEqual([]);
  });

  it("name an export, a signing key and a tag by their JWT field path", async () => {
    const held = await heldJwt(account, {
      ...NSC_DEFAULTS,
      exports: [ORDERS_EXPORT],
      signing_keys: ["AKEY", "AOTHER"],
      tags: ["team-a"],
    });
    expect(droppedClaims(held, signed)).toEqual(["exports[0]", "signing_keys[1]", "tags[0]"]);
  });

  it("name what a matching export lacks, and a scope a plain signing key would lose", async () => {
    const held = await heldJwt(account, {
      exports: [ORDERS_EXPORT],
      signing_keys: [{ kind: "user_scope", key: "AKEY", role: "dev", template: { pub: { allow: ["dev.>"] } } }],
    });
    const mine = { ...signed, exports: [{ name: "orders-events", subject: "orders.events.>", type: "stream" }] };
    expect(droppedClaims(held, mine)).toEqual(["exports[0].description", "signing_keys[0]"]);
  });

  it("leave out revocations, which are merged into the new JWT", async () => {
    expect(droppedClaims(await heldJwt(account, { revocations: { UABC: 1 } }), signed)).toEqual([]);
  });

  it("find a JetStream tier no NatsAccount can name", async () => {
    const held = await heldJwt(account, { limits: { tiered_limits: { R1: {}, R3: {}, archive: {} } } });
    expect(inexpressibleTiers(held)).toEqual(["archive"]);
  });
});

/** Account `orders` observed as at its first signing, with every server holding `held(identity)`. */
async function takingOver(spec: Record<string, unknown>, held: (identity: string) => Promise<string>) {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("orders", spec)]);
  await world.run("NatsSystemAccount", "sys", NOW);
  await world.run("NatsOperator", "main", NOW);
  // Keyed and signed without a system connection; the JWT is then taken away, as before a first signing.
  await world.run("NatsAccount", "orders", NOW);
  const read = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "orders" });
  if (read?.observed.kind !== "NatsAccount") throw new Error("no account");
  const identity = read.observed.object.status?.publicKey ?? "";
  const jwt = await held(identity);
  const { jwt: _jwt, jwtHash: _hash, ...unsigned } = read.observed.object.status ?? {};
  const observed: AccountObserved = {
    ...read.observed,
    object: { ...read.observed.object, status: unsigned } as NatsAccount,
    distribution: { kind: "read", roster: ROSTER, polledAt: NOW.toISOString(), holdings: [jwt, jwt, jwt] },
  };
  return decide(observed, NOW) as AccountDecision;
}

const readyOf = (d: Decision) =>
  (d.status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === "Ready",
  );

describe("taking over an account whose JWT the servers hold", () => {
  it("signs nothing while the servers' JWT carries a claim the spec drops: Ready False, AdoptionDropsClaims naming it", async () => {
    const decision = await takingOver({}, (id) => heldJwt(id, { ...NSC_DEFAULTS, exports: [ORDERS_EXPORT] }));
    expect(readyOf(decision)).toMatchObject({
      status: "False",
      reason: "AdoptionDropsClaims",
      message:
        "the JWT the servers hold carries claims the one signed from spec would not: exports[0]; declare them " +
        "in spec, or set spec.adoption.droppedClaims to Accept to sign without them",
    });
    expect(decision.sign).toEqual([]);
    expect(decision.push).toBeUndefined();
    expect(decision.events).toContainEqual(expect.objectContaining({ type: "Warning", reason: "AdoptionDropsClaims" }));
  });

  it("keeps the revocations of the servers' JWT in status while it refuses", async () => {
    const decision = await takingOver({}, (id) =>
      heldJwt(id, { tags: ["x"], revocations: { UREVOKED: 1_700_000_000 } }),
    );
    expect(readyOf(decision)?.reason).toBe("AdoptionDropsClaims");
    expect(decision.status.revocations).toEqual([expect.objectContaining({ publicKey: "UREVOKED" })]);
  });

  it("signs without them with spec.adoption.droppedClaims Accept", async () => {
    const decision = await takingOver({ adoption: { droppedClaims: "Accept" } }, (id) =>
      heldJwt(id, { exports: [ORDERS_EXPORT] }),
    );
    expect(readyOf(decision)?.status).toBe("True");
    expect(decision.sign).toHaveLength(1);
  });

  it("signs at once when nothing would be dropped", async () => {
    const decision = await takingOver({}, (id) => heldJwt(id, NSC_DEFAULTS));
    expect(readyOf(decision)?.status).toBe("True");
    expect(decision.sign).toHaveLength(1);
  });

  it("never takes over a JetStream tier no NatsAccount can name, even with Accept: TierInexpressible", async () => {
    const decision = await takingOver({ adoption: { droppedClaims: "Accept" } }, (id) =>
      heldJwt(id, { limits: { tiered_limits: { archive: { disk_storage: 1 } } } }),
    );
    expect(readyOf(decision)).toMatchObject({ status: "False", reason: "TierInexpressible" });
    expect(decision.sign).toEqual([]);
  });
});

describe("an account taken over from another signer after it was signed here (A26)", () => {
  /** Account `orders` signed here, its spec since edited, while every server holds a JWT issued elsewhere after it. */
  async function takenBack(held: (identity: string) => Promise<string>) {
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("orders")]);
    await world.run("NatsSystemAccount", "sys", NOW);
    await world.run("NatsOperator", "main", NOW);
    await world.run("NatsAccount", "orders", NOW);
    const read = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "orders" });
    if (read?.observed.kind !== "NatsAccount") throw new Error("no account");
    const identity = read.observed.object.status?.publicKey ?? "";
    // Issued a minute after this account's JWT (the encoder stamps iat from the clock).
    const later = Date.now() + 60_000;
    const clock = jest.spyOn(Date, "now").mockReturnValue(later);
    const jwt = await held(identity).finally(() => clock.mockRestore());
    const account = read.observed.object;
    const observed: AccountObserved = {
      ...read.observed,
      object: { ...account, spec: { ...account.spec, limits: { connections: 7 } } } as NatsAccount,
      distribution: { kind: "read", roster: ROSTER, polledAt: NOW.toISOString(), holdings: [jwt, jwt, jwt] },
    };
    return decide(observed, NOW) as AccountDecision;
  }

  it("signs again with the revocations of the JWT issued elsewhere: the users it revoked stay revoked", async () => {
    const decision = await takenBack((id) =>
      heldJwt(id, { ...NSC_DEFAULTS, revocations: { UREVOKED: 1_700_000_000 } }),
    );
    expect(decision.sign).toHaveLength(1);
    const claims = decision.sign[0]?.request.claims.nats as { revocations?: Record<string, number> };
    expect(claims.revocations).toEqual({ UREVOKED: 1_700_000_000 });
    // Who signed the revoked JWT is not known: the identity is among its issuers, so it never goes.
    expect(decision.status.revocations).toEqual([
      expect.objectContaining({ publicKey: "UREVOKED", issuers: expect.arrayContaining([decision.status.publicKey]) }),
    ]);
  });

  it("still refuses to drop a claim of that JWT, and keeps its revocations in status meanwhile", async () => {
    const decision = await takenBack((id) =>
      heldJwt(id, { exports: [ORDERS_EXPORT], revocations: { UREVOKED: 1_700_000_000 } }),
    );
    expect(readyOf(decision)?.reason).toBe("AdoptionDropsClaims");
    expect(decision.sign).toEqual([]);
    expect(decision.status.revocations).toEqual([expect.objectContaining({ publicKey: "UREVOKED" })]);
  });
});
