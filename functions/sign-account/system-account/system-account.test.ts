import { describe, expect, it, jest } from "@jest/globals";
import { Algorithms, createOperator, decode, encode, type ClaimsData } from "@nats-io/jwt";
import { FINALIZERS } from "../../../shared/api/index.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, dependentsOf, observe } from "../../../test/support/auth-world.ts";
import { SYSTEM_ACCOUNT_EXPORTS } from "../jwt/claims.ts";
import type { Decision } from "../decision.ts";
import type { DistributionReading } from "../servers/types.ts";
import { jwtHash } from "../jwt/hash.ts";
import type { NatsOperator, NatsUser } from "../objects.ts";
import { SYSTEM_CONNECTION_ENV, systemConnectionUser } from "../servers/system-connection.ts";
import type { UserObserved } from "../user/types.ts";
import type { SystemAccountObserved } from "./types.ts";
import type { OperatorObserved } from "../operator/types.ts";
import { newerSystemJwtHeld } from "../operator/observe.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const DELETED_AT = "2026-12-03T09:59:00Z";
const AUTH = "auth.nats-operator.io/v1beta1";
const ROSTER = ["NA", "NB", "NC"];

const systemUser = (name: string) => userObject(name, { accountRef: { kind: "NatsSystemAccount", name: "sys" } });

/** A signed operator and system account with system user `ops`, as their events would come (no system connection). */
async function signedWorld() {
  const world = authWorld([operatorObject(), systemAccountObject(), systemUser("ops")]);
  for (const [kind, name] of [
    ["NatsSystemAccount", "sys"],
    ["NatsOperator", "main"],
    ["NatsSystemAccount", "sys"],
    ["NatsUser", "ops"],
  ] as const)
    expect((await world.run(kind, name, NOW)).kind).toBe("done");
  return world;
}

type World = Awaited<ReturnType<typeof signedWorld>>;

const readOperator = (world: World) => world.get<NatsOperator>(AUTH, "NatsOperator", "main");
const readUser = (world: World) => world.get<NatsUser>(AUTH, "NatsUser", "ops");
const systemJwt = async (world: World) => (await readOperator(world))?.status?.systemAccount?.jwt ?? "";

/** The system account as observed, with the servers answering `holdings` (one JWT per server). */
async function observedSystem(world: World, holdings: string[]): Promise<SystemAccountObserved> {
  const read = await observe(world.kube, { kind: "NatsSystemAccount", namespace: "auth", name: "sys" });
  if (read?.observed.kind !== "NatsSystemAccount") throw new Error("no system account");
  const distribution: DistributionReading = { kind: "read", roster: ROSTER, polledAt: NOW.toISOString(), holdings };
  return { ...read.observed, distribution };
}

async function observedUser(world: World): Promise<UserObserved> {
  const read = await observe(world.kube, { kind: "NatsUser", namespace: "auth", name: "ops" });
  if (read?.observed.kind !== "NatsUser") throw new Error("no user");
  return read.observed;
}

const conditionOf = (d: Decision, type: string) =>
  (d.status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === type,
  );

const markDeleted = (world: World) =>
  world.kube.patch(
    { apiVersion: AUTH, kind: "NatsUser", namespace: "auth", name: "ops" },
    { metadata: { deletionTimestamp: DELETED_AT } },
    "merge",
  );

describe("a NatsSystemAccount's JWT on the servers", () => {
  it("held by every roster server reads Distributed True, 3 of 3, and Ready Distributed, with no push and no poll", async () => {
    const world = await signedWorld();
    const jwt = await systemJwt(world);
    const decision = decide(await observedSystem(world, [jwt, jwt, jwt]), NOW);
    expect(conditionOf(decision, "Distributed")).toMatchObject({
      status: "True",
      reason: "AllServersCurrent",
      message: "3 of 3 servers hold this JWT",
    });
    expect(conditionOf(decision, "Ready")).toMatchObject({ status: "True", reason: "Distributed" });
    expect(decision.push).toBeUndefined();
    expect(decision.schedules).toEqual([
      { schedule: { namespace: "auth", name: "sys-systemaccount-distribution" }, poll: false },
    ]);
  });

  it("held by a server in an older version is pushed (the JWT its operator signed) and polled every 10s until confirmed", async () => {
    const world = await signedWorld();
    const jwt = await systemJwt(world);
    const decision = decide(await observedSystem(world, [jwt, "", jwt]), NOW);
    expect(conditionOf(decision, "Distributed")).toMatchObject({
      status: "False",
      reason: "ServersBehind",
      message: "2 of 3 servers hold this JWT",
    });
    expect(decision.push).toBe(true);
    expect(decision.jwt).toBe(jwt);
    expect(decision.status).toMatchObject({ jwtHash: jwtHash(jwt), distribution: { servers: 3, current: 2 } });
    expect(decision.schedules).toEqual([
      expect.objectContaining({
        schedule: expect.objectContaining({
          name: "sys-systemaccount-distribution",
          work: { namespace: "auth", kind: "NatsSystemAccount", name: "sys" },
        }),
        poll: { every: "10s" },
      }),
    ]);
  });

  it("is not pushed while its NatsOperator reads RevocationsUnrecovered True", async () => {
    const world = await signedWorld();
    const jwt = await systemJwt(world);
    const observed = await observedSystem(world, ["", "", ""]);
    const operator = observed.operator as NatsOperator;
    const unrecovered = {
      type: "RevocationsUnrecovered",
      status: "True" as const,
      reason: "ServersUnanswered",
      message: "1 of 3 servers did not answer",
      lastTransitionTime: DELETED_AT,
    };
    const held = {
      ...observed,
      operator: { ...operator, status: { ...operator.status, conditions: [unrecovered] } },
    };
    const decision = decide(held, NOW);
    expect(decision.push).toBeUndefined();
    expect(conditionOf(decision, "Distributed")).toMatchObject({
      status: "False",
      message: "0 of 3 servers hold this JWT",
    });
    expect(jwt).not.toBe("");
  });

  it("held newer by a server reads NewerJWTHeld, and its operator signs it again", async () => {
    const world = await signedWorld();
    const jwt = await systemJwt(world);
    // A JWT issued after ours: only its issue time is read.
    const [head, payload, signature] = jwt.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { iat: number };
    const newer = [
      head,
      Buffer.from(JSON.stringify({ ...claims, iat: claims.iat + 60 })).toString("base64url"),
      signature,
    ];
    const decision = decide(await observedSystem(world, [jwt, newer.join("."), jwt]), NOW);
    expect(conditionOf(decision, "Distributed")).toMatchObject({ status: "False", reason: "NewerJWTHeld" });
    expect(decision.push).toBeUndefined();

    const operator = async () => {
      const read = await observe(world.kube, { kind: "NatsOperator", namespace: "auth", name: "main" });
      if (!read) throw new Error("no operator");
      return decide(read.observed, NOW);
    };
    // Signed once, and again only once the system account reads NewerJWTHeld for that very JWT.
    expect((await operator()).sign).toEqual([]);
    await world.kube.patch(
      { apiVersion: AUTH, kind: "NatsSystemAccount", namespace: "auth", name: "sys" },
      { status: decision.status },
      "merge",
    );
    expect((await operator()).sign.map((s) => s.into)).toEqual(["systemAccount.jwt"]);
  });
});

describe("a NatsUser of a NatsSystemAccount", () => {
  it("carries the revoke finalizer once it is signed", async () => {
    const world = await signedWorld();
    expect((await readUser(world))?.metadata.finalizers).toEqual([FINALIZERS.userRevoke]);
  });

  it("deleted, is revoked in the system account JWT its operator signs, with the system account's signing key as issuer", async () => {
    const world = await signedWorld();
    const key = (await readUser(world))?.status?.publicKey ?? "";
    await markDeleted(world);
    const waiting = decide(await observedUser(world), NOW);
    expect(conditionOf(waiting, "Distributed")).toMatchObject({ status: "False", reason: "Revoking" });
    expect(waiting.finalizer).toBeUndefined();

    expect((await world.run("NatsOperator", "main", NOW)).kind).toBe("done");
    const signed = (await readOperator(world))?.status?.systemAccount;
    const signing = decode(signed?.jwt ?? "").nats as { signing_keys?: string[]; revocations?: Record<string, number> };
    expect(signed?.revocations).toEqual([{ publicKey: key, at: DELETED_AT, issuers: signing.signing_keys }]);
    expect(signing.revocations).toEqual({ [key]: Date.parse(DELETED_AT) / 1000 });
    // The NatsSystemAccount shows them too.
    const system = decide(await observedSystem(world, []), NOW);
    expect((system.status as { revocations?: unknown }).revocations).toEqual(signed?.revocations);
  });

  it("deleted without a system connection, goes once the system account JWT revokes it, in the delivery of its deletion", async () => {
    const world = await signedWorld();
    await markDeleted(world);
    expect((await world.run("NatsUser", "ops", NOW)).kind).toBe("done");
    // The user's delivery reconciles the operator (which signs the revocation) and the user again.
    const next = await dependentsOf(world.kube, { kind: "NatsUser", namespace: "auth", name: "ops" });
    expect(next).toEqual([
      { kind: "NatsOperator", namespace: "auth", name: "main" },
      { kind: "NatsSystemAccount", namespace: "auth", name: "sys" },
      { kind: "NatsUser", namespace: "auth", name: "ops", again: true },
    ]);
    for (const subject of next) await world.run(subject.kind, subject.name, NOW);
    // Its finalizer is gone: the API server then deletes it, and the creds Secret it owns.
    expect((await readUser(world))?.metadata.finalizers).toEqual([]);
  });

  it("deleted with a system connection, waits (Distributing) until the system account counts the revoking JWT on every server", async () => {
    const world = await signedWorld();
    const jwt = await systemJwt(world);
    await markDeleted(world);
    // The system account counted the JWT before the revocation: every server held that one.
    await world.kube.patch(
      { apiVersion: AUTH, kind: "NatsSystemAccount", namespace: "auth", name: "sys" },
      { status: decide(await observedSystem(world, [jwt, jwt, jwt]), NOW).status },
      "merge",
    );
    await world.run("NatsOperator", "main", NOW);
    const observed = await observedUser(world);
    const decision = decide(
      { ...observed, connections: { kind: "read", roster: ROSTER, answered: ROSTER, connections: [] } },
      NOW,
    );
    expect(conditionOf(decision, "Distributed")).toMatchObject({ status: "False", reason: "Distributing" });
    expect(decision.finalizer).toBeUndefined();
  });
});

describe("deleting the system connection's own user", () => {
  it("is recognised by the key of the JWT in the system connection's creds Secret", async () => {
    const world = await signedWorld();
    const key = (await readUser(world))?.status?.publicKey;
    await world.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "system", namespace: "auth" },
      spec: { servers: ["nats://nowhere:4222"], credentials: { secretKeyRef: { name: "ops-creds" } } },
    } as KubeObject);
    const previous = process.env[SYSTEM_CONNECTION_ENV];
    process.env[SYSTEM_CONNECTION_ENV] = "auth/system";
    try {
      expect(await systemConnectionUser(world.kube)).toBe(key);
    } finally {
      if (previous === undefined) Reflect.deleteProperty(process.env, SYSTEM_CONNECTION_ENV);
      else process.env[SYSTEM_CONNECTION_ENV] = previous;
    }
  });

  it("ends its drain once the system account JWT revokes it: nothing could confirm the rest through the connection it closes", async () => {
    const world = await signedWorld();
    await markDeleted(world);
    await world.run("NatsOperator", "main", NOW);
    const observed = await observedUser(world);
    const reading = { kind: "read" as const, roster: ROSTER, answered: [], connections: [] };
    const decision = decide({ ...observed, connections: reading, systemConnectionUser: true }, NOW);
    expect(decision.finalizer).toBe("remove");
    expect(decision.summary).toContain("it is the system connection's own user");
  });
});

describe("recovering the system account's revocations from the servers", () => {
  const OLD = "UOLDSYSTEMUSERREVOKEDBYNSC";
  const REVOKED_AT = 1_700_000_000;

  /** The operator observed with a status that lost the system account JWT and revocations. */
  async function lostOperator(world: World, holdings: (systemKey: string) => Promise<string[]>, roster = ROSTER) {
    const operator = (await readOperator(world)) as NatsOperator;
    const { jwt: _jwt, revocations: _revocations, ...kept } = operator.status?.systemAccount ?? {};
    await world.kube.patch(
      { apiVersion: AUTH, kind: "NatsOperator", namespace: "auth", name: "main" },
      { status: { ...operator.status, systemAccount: kept } },
      "merge",
    );
    const read = await observe(world.kube, { kind: "NatsOperator", namespace: "auth", name: "main" });
    if (read?.observed.kind !== "NatsOperator") throw new Error("no operator");
    const observed: OperatorObserved = {
      ...read.observed,
      systemRecovery: {
        kind: "read",
        roster,
        polledAt: NOW.toISOString(),
        holdings: await holdings(kept.publicKey ?? ""),
      },
    };
    return decide(observed, NOW);
  }

  const systemKeyOf = (decision: Decision) =>
    decision.sign.find((s) => s.into === "systemAccount.jwt")?.request.claims.sub ?? "";

  /** A system account JWT made elsewhere (by nsc, say) revoking OLD. */
  const revoking = (sub: string) =>
    encode(
      Algorithms.v2,
      {
        name: "SYS",
        sub,
        nats: { type: "account", version: 2, revocations: { [OLD]: REVOKED_AT } },
      } as unknown as ClaimsData<unknown>,
      createOperator(),
    );

  it("signs the revocations of the JWT every server holds into the system account JWT: RevocationsUnrecovered False, Recovered", async () => {
    const world = await signedWorld();
    const decision = await lostOperator(world, async (key) => {
      const held = await revoking(key);
      return [held, held, held];
    });
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
    const claims = decision.sign.find((s) => s.into === "systemAccount.jwt")?.request.claims.nats as {
      revocations?: Record<string, number>;
    };
    expect(claims.revocations).toEqual({ [OLD]: REVOKED_AT });
    const listed = (decision.status as NatsOperator["status"])?.systemAccount?.revocations ?? [];
    // Read from the servers, the entry lists the identity among its issuers: no rotation drops it.
    expect(listed).toEqual([
      expect.objectContaining({ publicKey: OLD, issuers: expect.arrayContaining([systemKeyOf(decision)]) }),
    ]);
  });

  /** A system account JWT as nsc makes it: the monitoring exports, described, and `extra` ones. */
  const nscSystemJwt = (sub: string, extra: Record<string, unknown>[] = []) =>
    encode(
      Algorithms.v2,
      {
        name: "SYS",
        sub,
        nats: {
          type: "account",
          version: 2,
          default_permissions: { pub: {}, sub: {} },
          exports: [
            ...SYSTEM_ACCOUNT_EXPORTS.map((e) => ({ ...e, description: "nsc's", info_url: "https://docs.nats.io" })),
            ...extra,
          ],
        },
      } as unknown as ClaimsData<unknown>,
      createOperator(),
    );

  it("takes over nsc's system account JWT, whose monitoring exports carry descriptions, without a refusal", async () => {
    const world = await signedWorld();
    const decision = await lostOperator(world, async (key) => {
      const held = await nscSystemJwt(key);
      return [held, held, held];
    });
    expect(conditionOf(decision, "Ready")?.status).toBe("True");
    expect(decision.sign.map((s) => s.into)).toEqual(["systemAccount.jwt"]);
  });

  it("signs nothing while the servers' system account JWT has an export it would drop: AdoptionDropsClaims on the operator and the system account", async () => {
    const world = await signedWorld();
    const extra = { name: "audit", subject: "audit.>", type: "stream" };
    const decision = await lostOperator(world, async (key) => {
      const held = await nscSystemJwt(key, [extra]);
      return [held, held, held];
    });
    expect(conditionOf(decision, "Ready")).toMatchObject({
      status: "False",
      reason: "AdoptionDropsClaims",
      message: expect.stringContaining("would not: exports[2];"),
    });
    expect(decision.sign).toEqual([]);
    await world.kube.patch(
      { apiVersion: AUTH, kind: "NatsOperator", namespace: "auth", name: "main" },
      { status: decision.status },
      "merge",
    );
    const system = decide(await observedSystem(world, []), NOW);
    expect(conditionOf(system, "Ready")).toMatchObject({ status: "False", reason: "AdoptionDropsClaims" });
  });

  it("signs without them once the NatsSystemAccount accepts dropped claims", async () => {
    const world = await signedWorld();
    await world.kube.patch(
      { apiVersion: AUTH, kind: "NatsSystemAccount", namespace: "auth", name: "sys" },
      { spec: { operatorRef: { name: "main" }, adoption: { droppedClaims: "Accept" } } },
      "merge",
    );
    const decision = await lostOperator(world, async (key) => {
      const held = await nscSystemJwt(key, [{ name: "audit", subject: "audit.>", type: "stream" }]);
      return [held, held, held];
    });
    expect(conditionOf(decision, "Ready")?.status).toBe("True");
    expect(decision.sign.map((s) => s.into)).toEqual(["systemAccount.jwt"]);
  });

  it("signs without them while a server is silent: RevocationsUnrecovered True (its system account then pushes nothing)", async () => {
    const world = await signedWorld();
    const decision = await lostOperator(world, async (key) => [await revoking(key)], ["NA", "NB"]);
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({
      status: "True",
      reason: "ServersUnanswered",
      message: expect.stringContaining("1 of 2 servers did not answer the claims lookup"),
    });
    expect(decision.sign.map((s) => s.into)).toEqual(["systemAccount.jwt"]);
  });
});

describe("a system account JWT issued elsewhere after the operator's (A26)", () => {
  it("is signed again with the revocations of the newer JWT the servers hold", async () => {
    const world = await signedWorld();
    const jwt = await systemJwt(world);
    const key = decode<unknown>(jwt).sub;
    const OLD = "UREVOKEDBYTHEOTHERSIGNER";
    // Issued a minute after ours (encode stamps iat from the clock; the same second would not be newer).
    const clock = jest.spyOn(Date, "now").mockReturnValue(decode<unknown>(jwt).iat * 1000 + 60_000);
    const newer = await encode(
      Algorithms.v2,
      {
        name: "SYS",
        sub: key,
        nats: { type: "account", version: 2, revocations: { [OLD]: 1_700_000_000 } },
      } as unknown as ClaimsData<unknown>,
      createOperator(),
    );
    clock.mockRestore();
    // The system account reads NewerJWTHeld for the JWT its operator signed.
    const held = decide(await observedSystem(world, [newer, newer, newer]), NOW);
    await world.kube.patch(
      { apiVersion: AUTH, kind: "NatsSystemAccount", namespace: "auth", name: "sys" },
      { status: held.status },
      "merge",
    );
    const read = await observe(world.kube, { kind: "NatsOperator", namespace: "auth", name: "main" });
    if (read?.observed.kind !== "NatsOperator") throw new Error("no operator");
    // Which makes the operator's observe ask the servers for it (there is no system connection here).
    expect(newerSystemJwtHeld(read.observed.systemAccount?.object)).toBe(true);
    const observed: OperatorObserved = {
      ...read.observed,
      systemRecovery: { kind: "read", roster: ROSTER, polledAt: NOW.toISOString(), holdings: [newer, newer, newer] },
    };
    const decision = decide(observed, NOW);
    const signed = decision.sign.find((s) => s.into === "systemAccount.jwt");
    expect((signed?.request.claims.nats as { revocations?: Record<string, number> }).revocations).toEqual({
      [OLD]: 1_700_000_000,
    });
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
  });
});
