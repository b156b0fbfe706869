import { describe, expect, it } from "@jest/globals";
import { FINALIZERS } from "../../../shared/api/index.ts";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../../test/support/auth-world.ts";
import { unexpiredDeletions } from "../operator/decide.ts";
import type { DistributionReading } from "../servers/types.ts";
import type { NatsAccount, NatsOperator } from "../objects.ts";
import type { AccountObserved } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const ROSTER = ["NA", "NB", "NC"];
const read = (
  holdings: string[],
  extra: { lastDelete?: { at: string; acknowledged: number; refused: string[] } } = {},
) => ({ kind: "read", roster: ROSTER, holdings, ...extra }) as DistributionReading;

/** An account signed under a generated operator (no system connection), observed as a delivery would. */
async function signedAccount(spec: Record<string, unknown> = {}): Promise<AccountObserved> {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app", spec)]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  await world.run("NatsAccount", "app");
  const got = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "app" });
  if (got?.observed.kind !== "NatsAccount") throw new Error("no account");
  return got.observed;
}

/** The same observation of the account being deleted, with the delete finalizer and `distribution`. */
function deleting(observed: AccountObserved, distribution: DistributionReading, finalizer = true): AccountObserved {
  const object = {
    ...observed.object,
    metadata: {
      ...observed.object.metadata,
      deletionTimestamp: "2026-12-03T09:59:00Z",
      ...(finalizer ? { finalizers: [FINALIZERS.accountDelete] } : {}),
    },
  } as NatsAccount;
  return { ...observed, object, distribution };
}

const distributedOf = (status: unknown) =>
  (status as { conditions?: { type: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === "Distributed",
  );

describe("deleting a NatsAccount with a system connection", () => {
  it("sends the delete signed by the operator's signing key and records the account on the operator while servers hold its JWT", async () => {
    const observed = await signedAccount({ jwtTTL: "2h" });
    const jwt = observed.object.status?.jwt ?? "";
    const key = observed.object.status?.publicKey ?? "";
    const decision = decide(deleting(observed, read([jwt, jwt, ""])), NOW);
    const operator = observed.operator?.object as NatsOperator;
    const signer = operator.status?.signingKeys?.[0];
    expect(decision.deleteRequest).toEqual({ signer: expect.any(String), accounts: [key] });
    expect(JSON.stringify(operator.status)).toContain(decision.deleteRequest?.signer ?? "none");
    expect(decision.deleteRequest?.signer).not.toBe(operator.status?.publicKey);
    expect(signer).toBeDefined();
    expect(decision.recordDeleted).toEqual({
      operator: { namespace: "auth", name: "main" },
      publicKey: key,
      expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(decision.finalizer).toBeUndefined();
    expect(decision.sign).toEqual([]);
    expect(distributedOf(decision.status)).toMatchObject({
      reason: "Deleting",
      message: "deleting: 2 of 3 servers still hold this account's JWT",
    });
    expect(decision.schedules).toEqual([
      expect.objectContaining({
        schedule: expect.objectContaining({ name: "app-account-distribution" }),
        poll: { every: "10s" },
      }),
      expect.objectContaining({
        schedule: expect.objectContaining({ name: "main-operator-deletions" }),
        poll: { every: "1m" },
      }),
    ]);
  });

  it("removes the finalizer and ends the poll once every roster server answers that it holds no JWT", async () => {
    const decision = decide(deleting(await signedAccount(), read(["", "", ""])), NOW);
    expect(decision.finalizer).toBe("remove");
    expect(decision.deleteRequest).toBeUndefined();
    expect(decision.recordDeleted).toBeUndefined();
    expect(decision.schedules).toEqual([
      { schedule: { namespace: "auth", name: "app-account-distribution" }, poll: false },
    ]);
  });

  it("keeps the operator's watch when releasing an account its operator lists as deleted", async () => {
    const observed = await signedAccount();
    const operator = observed.operator?.object as NatsOperator;
    const key = observed.object.status?.publicKey ?? "";
    const listed = {
      ...observed,
      operator: {
        ...(observed.operator as NonNullable<AccountObserved["operator"]>),
        object: { ...operator, status: { ...operator.status, deletedAccounts: [{ publicKey: key }] } },
      },
    };
    const decision = decide(deleting(listed, read(["", "", ""])), NOW);
    expect(decision.finalizer).toBe("remove");
    expect(decision.schedules).toContainEqual(
      expect.objectContaining({
        schedule: expect.objectContaining({ name: "main-operator-deletions" }),
        poll: { every: "1m" },
      }),
    );
  });

  it("is not confirmed while a roster server is silent, and says so", async () => {
    const decision = decide(deleting(await signedAccount(), read(["", ""])), NOW);
    expect(decision.finalizer).toBeUndefined();
    expect(decision.deleteRequest).toBeDefined();
    expect(distributedOf(decision.status)?.message).toBe(
      "deleting: 0 of 3 servers still hold this account's JWT, 1 did not answer",
    );
  });

  it("sends once per delivery: after a delete in this delivery only the poll sends again", async () => {
    const observed = await signedAccount();
    const jwt = observed.object.status?.jwt ?? "";
    const lastDelete = { at: NOW.toISOString(), acknowledged: 2, refused: [] };
    const decision = decide(deleting(observed, read([jwt, "", ""], { lastDelete })), NOW);
    expect(decision.deleteRequest).toBeUndefined();
    expect(decision.finalizer).toBeUndefined();
  });

  it("reads DeleteRefused and does not resend when a server refused the delete", async () => {
    const observed = await signedAccount();
    const jwt = observed.object.status?.jwt ?? "";
    const lastDelete = { at: NOW.toISOString(), acknowledged: 0, refused: ["n1: delete must be enabled"] };
    const decision = decide(deleting(observed, read([jwt, jwt, jwt], { lastDelete })), NOW);
    expect(decision.deleteRequest).toBeUndefined();
    expect(distributedOf(decision.status)).toMatchObject({ reason: "DeleteRefused" });
  });

  it("does not record an account the operator already lists", async () => {
    const observed = await signedAccount();
    const key = observed.object.status?.publicKey ?? "";
    const jwt = observed.object.status?.jwt ?? "";
    const operator = observed.operator?.object as NatsOperator;
    const listed = {
      ...observed,
      operator: {
        ...(observed.operator as NonNullable<AccountObserved["operator"]>),
        object: { ...operator, status: { ...operator.status, deletedAccounts: [{ publicKey: key }] } },
      },
    };
    const decision = decide(deleting(listed, read([jwt, jwt, jwt])), NOW);
    expect(decision.deleteRequest).toBeDefined();
    expect(decision.recordDeleted).toBeUndefined();
  });

  it("removes the finalizer at once without a system connection, or once the operator is gone", async () => {
    const observed = await signedAccount();
    const jwt = observed.object.status?.jwt ?? "";
    expect(decide(deleting(observed, { kind: "off" }), NOW).finalizer).toBe("remove");
    const { operator: _gone, ...orphan } = deleting(observed, read([jwt, jwt, jwt]));
    const decision = decide(orphan, NOW);
    expect(decision.finalizer).toBe("remove");
    expect(decision.deleteRequest).toBeUndefined();
  });

  it("waits, sending nothing, while the servers cannot be reached", async () => {
    const decision = decide(deleting(await signedAccount(), { kind: "unreachable", message: "timeout" }), NOW);
    expect(decision.finalizer).toBeUndefined();
    expect(decision.deleteRequest).toBeUndefined();
    expect(distributedOf(decision.status)).toMatchObject({ reason: "Unreachable", message: "deleting: timeout" });
  });

  it("does nothing for an account being deleted without the finalizer", async () => {
    const observed = await signedAccount();
    const decision = decide(deleting(observed, read(["x", "x", "x"]), false), NOW);
    expect(decision.finalizer).toBeUndefined();
    expect(decision.deleteRequest).toBeUndefined();
    expect(decision.schedules).toEqual([]);
  });
});

describe("the delete finalizer on a live NatsAccount", () => {
  it("is added with a push, only while a system connection is configured", async () => {
    const observed = await signedAccount();
    const pushing = decide({ ...observed, distribution: read(["", "", ""]) }, NOW);
    expect(pushing.push).toBe(true);
    expect(pushing.finalizer).toBe("add");
    expect(decide({ ...observed, distribution: { kind: "off" } }, NOW).finalizer).toBeUndefined();
  });

  it("is added for a JWT the servers already hold, and not again once present", async () => {
    const observed = await signedAccount();
    const jwt = observed.object.status?.jwt ?? "";
    expect(decide({ ...observed, distribution: read([jwt, jwt, jwt]) }, NOW).finalizer).toBe("add");
    const withFinalizer = {
      ...observed,
      object: {
        ...observed.object,
        metadata: { ...observed.object.metadata, finalizers: [FINALIZERS.accountDelete] },
      } as NatsAccount,
    };
    expect(decide({ ...withFinalizer, distribution: read([jwt, jwt, jwt]) }, NOW).finalizer).toBeUndefined();
  });
});

describe("the operator's status.deletedAccounts", () => {
  it("keeps an entry until the account's last JWT would have expired, and one that never expires", () => {
    const listed = [
      { publicKey: "AEXPIRED", expires: "2026-12-03T09:00:00Z" },
      { publicKey: "ALATER", expires: "2026-12-03T11:00:00Z" },
      { publicKey: "ANEVER" },
    ];
    expect(unexpiredDeletions(listed, NOW)?.map((d) => d.publicKey)).toEqual(["ALATER", "ANEVER"]);
    expect(unexpiredDeletions([{ publicKey: "AEXPIRED", expires: "2026-12-03T09:00:00Z" }], NOW)).toBeUndefined();
  });
});

describe("deleted accounts a server still holds (a server that rejoins)", () => {
  async function operatorWith(deletedAccounts: { publicKey: string; expires?: string }[]) {
    const world = authWorld([operatorObject(), systemAccountObject()]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    const got = await observe(world.kube, { kind: "NatsOperator", namespace: "auth", name: "main" });
    if (got?.observed.kind !== "NatsOperator") throw new Error("no operator");
    const object = {
      ...got.observed.object,
      status: { ...got.observed.object.status, deletedAccounts },
    } as NatsOperator;
    return { ...got.observed, object };
  }
  const deletions = (held: string[], lastDelete?: { at: string; acknowledged: number; refused: string[] }) =>
    ({ kind: "read", roster: ROSTER, held, ...(lastDelete ? { lastDelete } : {}) }) as const;

  it("sends the delete again, signed by the operator's signing key, for a listed account a server holds", async () => {
    const observed = await operatorWith([{ publicKey: "AHELD" }, { publicKey: "AGONE" }]);
    const decision = decide({ ...observed, deletions: deletions(["AHELD"]) }, NOW);
    expect(decision.deleteRequest).toEqual({ signer: observed.object.status?.signingKeys?.[0], accounts: ["AHELD"] });
    expect(decision.schedules).toContainEqual(
      expect.objectContaining({
        schedule: expect.objectContaining({ name: "main-operator-deletions" }),
        poll: { every: "1m" },
      }),
    );
  });

  it("watches without sending while no server holds a listed account, and not again in the same delivery", async () => {
    const observed = await operatorWith([{ publicKey: "AGONE" }]);
    const quiet = decide({ ...observed, deletions: deletions([]) }, NOW);
    expect(quiet.deleteRequest).toBeUndefined();
    expect(quiet.schedules).toContainEqual(expect.objectContaining({ poll: { every: "1m" } }));
    const lastDelete = { at: NOW.toISOString(), acknowledged: 3, refused: [] };
    expect(decide({ ...observed, deletions: deletions(["AGONE"], lastDelete) }, NOW).deleteRequest).toBeUndefined();
  });

  it("stops watching once every entry expired, and has no poll without a system connection", async () => {
    const expired = await operatorWith([{ publicKey: "AOLD", expires: "2026-12-03T09:00:00Z" }]);
    const decision = decide({ ...expired, deletions: deletions(["AOLD"]) }, NOW);
    expect(decision.deleteRequest).toBeUndefined();
    expect((decision.status as NatsOperator["status"])?.deletedAccounts).toBeUndefined();
    expect(decision.schedules).toContainEqual({
      schedule: { namespace: "auth", name: "main-operator-deletions" },
      poll: false,
    });
    const off = decide({ ...(await operatorWith([{ publicKey: "AHELD" }])), deletions: { kind: "off" } }, NOW);
    expect(off.schedules).toEqual([]);
  });
});
