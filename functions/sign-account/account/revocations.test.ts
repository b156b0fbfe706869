import { describe, expect, it } from "@jest/globals";
import { Algorithms, createAccount, createUser, encode, type ClaimsData } from "@nats-io/jwt";
import { FINALIZERS } from "../../../shared/api/index.ts";
import { userObject } from "../../../test/fixtures/auth/objects.ts";
import type { NatsUser } from "../objects.ts";
import { mergeRevocations, revokedByUsers, revokes } from "./revocations.ts";

const identity = createAccount();
const signer = createAccount();
const retired = createAccount();
const U1 = createUser().getPublicKey();
const U2 = createUser().getPublicKey();
const U3 = createUser().getPublicKey();
const SIGNING = [signer.getPublicKey()];
const IDENTITY = identity.getPublicKey();

/** An account JWT listing `signing` and carrying `revocations`, signed by the first signing key. */
const accountJwt = (revocations: Record<string, number>, signing = SIGNING, by = signer) =>
  encode(
    Algorithms.v2,
    {
      sub: IDENTITY,
      name: "app",
      nats: { type: "account", version: 2, signing_keys: signing, revocations },
    } as unknown as ClaimsData<unknown>,
    by,
  );

const user = (name: string, status: Record<string, unknown>, deletion?: string): NatsUser =>
  ({
    ...userObject(name),
    metadata: {
      ...userObject(name).metadata,
      ...(deletion ? { deletionTimestamp: deletion, finalizers: [FINALIZERS.userRevoke] } : {}),
    },
    status,
  }) as NatsUser;

describe("an account's revocations", () => {
  it("are the union of status, the JWT being replaced and the users revoked now, the latest time winning per key", async () => {
    const previous = await accountJwt({ [U1]: 1_000, [U2]: 5_000 });
    const { revocations, claim } = mergeRevocations({
      recorded: [{ publicKey: U2, at: "1970-01-01T00:50:00Z", issuers: SIGNING }],
      previousJwt: previous,
      revokedNow: [{ publicKey: U3, at: "2026-12-03T10:00:00Z" }],
      signing: SIGNING,
      identity: IDENTITY,
    });
    expect(revocations).toEqual(
      [
        { publicKey: U1, at: "1970-01-01T00:16:40Z", issuers: SIGNING },
        { publicKey: U2, at: "1970-01-01T01:23:20Z", issuers: SIGNING },
        { publicKey: U3, at: "2026-12-03T10:00:00Z", issuers: SIGNING },
      ].sort((a, b) => (a.publicKey < b.publicKey ? -1 : 1)),
    );
    expect(claim).toEqual({ [U1]: 1_000, [U2]: 5_000, [U3]: Date.parse("2026-12-03T10:00:00Z") / 1000 });
  });

  it("keep what status lost from the JWT, and what the JWT lost from status", async () => {
    const fromJwt = mergeRevocations({
      recorded: undefined,
      previousJwt: await accountJwt({ [U1]: 1_000 }),
      revokedNow: [],
      signing: SIGNING,
      identity: IDENTITY,
    });
    const fromStatus = mergeRevocations({
      recorded: fromJwt.revocations,
      previousJwt: undefined,
      revokedNow: [],
      signing: SIGNING,
      identity: IDENTITY,
    });
    expect(fromJwt.claim).toEqual({ [U1]: 1_000 });
    expect(fromStatus.claim).toEqual({ [U1]: 1_000 });
  });

  it("drop an entry once none of the keys that may have signed the revoked JWT signs for the account", async () => {
    const { revocations, claim } = mergeRevocations({
      recorded: [
        { publicKey: U1, at: "2026-12-01T00:00:00Z", issuers: [retired.getPublicKey()] },
        { publicKey: U2, at: "2026-12-01T00:00:00Z", issuers: [retired.getPublicKey(), IDENTITY] },
      ],
      previousJwt: undefined,
      revokedNow: [],
      signing: SIGNING,
      identity: IDENTITY,
    });
    // The identity never stops being the account's: what it may have signed stays revoked.
    expect(revocations.map((r) => r.publicKey)).toEqual([U2]);
    expect(Object.keys(claim ?? {})).toEqual([U2]);
  });

  it("keep a revocation of every user (*) that the JWT being replaced carries", async () => {
    const { claim } = mergeRevocations({
      recorded: [],
      previousJwt: await accountJwt({ "*": 2_000 }),
      revokedNow: [],
      signing: SIGNING,
      identity: IDENTITY,
    });
    expect(claim).toEqual({ "*": 2_000 });
  });

  it("sign no revocations claim when there is none", () => {
    const merged = mergeRevocations({
      recorded: [],
      previousJwt: undefined,
      revokedNow: [],
      signing: SIGNING,
      identity: IDENTITY,
    });
    expect(merged).toEqual({ revocations: [] });
  });

  it("revoke a JWT issued at or before the revocation time, not one issued after it", async () => {
    const jwt = await accountJwt({ [U1]: Date.parse("2026-12-03T10:00:00Z") / 1000 });
    expect(revokes(jwt, U1, "2026-12-03T10:00:00Z")).toBe(true);
    expect(revokes(jwt, U1, "2026-12-03T10:00:01Z")).toBe(false);
    expect(revokes(jwt, U2, "2026-12-03T10:00:00Z")).toBe(false);
    expect(revokes(undefined, U1, "2026-12-03T10:00:00Z")).toBe(false);
  });
});

describe("the keys an account's users give up", () => {
  it("are a deleted user's key from its deletion time, and every key a user lists as replaced", () => {
    const revoked = revokedByUsers([
      user("gone", { publicKey: U1 }, "2026-12-03T10:00:00Z"),
      user("renewed", { publicKey: U2, replacedKeys: [{ publicKey: U3, at: "2026-12-03T09:00:00Z" }] }),
    ]);
    expect(revoked).toEqual([
      { publicKey: U1, at: "2026-12-03T10:00:00Z" },
      { publicKey: U3, at: "2026-12-03T09:00:00Z" },
    ]);
  });

  it("leave out a deleted user's key that another user still holds, and a user deleted without the finalizer", () => {
    const noFinalizer = { ...user("plain", { publicKey: U3 }) };
    noFinalizer.metadata = { ...noFinalizer.metadata, deletionTimestamp: "2026-12-03T10:00:00Z" };
    const revoked = revokedByUsers([
      user("gone", { publicKey: U1 }, "2026-12-03T10:00:00Z"),
      user("holder", { publicKey: U1 }),
      noFinalizer,
    ]);
    expect(revoked).toEqual([]);
  });
});
