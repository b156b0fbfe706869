import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../../test/support/auth-world.ts";
import { decideAccount } from "./decide.ts";
import type { DistributionReading } from "../servers/types.ts";
import type { NatsAccount, NatsOperator } from "../objects.ts";
import type { AccountObserved } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const read = (holdings: string[], extra: Record<string, unknown> = {}) =>
  ({ kind: "read", roster: ["NA", "NB", "NC"], holdings, ...extra }) as DistributionReading;
const conditionOf = (status: unknown, type: string) =>
  (status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === type,
  );

/** An account signed under its operator (no system connection), observed again as a delivery would. */
async function signedAccount(): Promise<AccountObserved> {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app", { jwtTTL: "2h" })]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  await world.run("NatsAccount", "app");
  const got = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "app" });
  if (got?.observed.kind !== "NatsAccount") throw new Error("no account");
  return got.observed;
}

/** The same account as seen once its grant is gone: not admitted, with `distribution` read for its key. */
const withdrawn = (observed: AccountObserved, distribution: DistributionReading): AccountObserved => ({
  ...observed,
  admitted: false,
  others: [],
  users: [],
  imports: [],
  distribution,
});

describe("an account whose grant is deleted", () => {
  it("is deleted from the servers by the operator: delete request, operator record, JWT emptied, key kept meanwhile", async () => {
    const observed = await signedAccount();
    const { jwt, publicKey } = observed.object.status ?? {};
    const decision = decideAccount(withdrawn(observed, read([jwt ?? "", jwt ?? "", ""])), NOW);
    const operator = observed.operator?.object as NatsOperator;
    expect(decision.deleteRequest).toEqual({ signer: operator.status?.signingKeys?.[0], accounts: [publicKey] });
    expect(decision.recordDeleted).toMatchObject({ operator: { namespace: "auth", name: "main" }, publicKey });
    expect(decision.recordDeleted?.expires).toBeDefined();
    expect(decision.status.jwt).toBeUndefined();
    expect(decision.status.jwtHash).toBeUndefined();
    expect(decision.status.jwtExpires).toBeUndefined();
    expect(decision.status.publicKey).toBe(publicKey);
    expect(decision.push).toBeUndefined();
    expect(conditionOf(decision.status, "Ready")).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(conditionOf(decision.status, "ReferencesResolved")).toMatchObject({ status: "False", reason: "NoGrant" });
    expect(conditionOf(decision.status, "Distributed")).toMatchObject({
      reason: "Deleting",
      message: "deleting: 2 of 3 servers still hold this account's JWT",
    });
    expect(decision.events).toEqual([expect.objectContaining({ type: "Warning", reason: "ReferenceNotPermitted" })]);
    expect(decision.schedules).toContainEqual(
      expect.objectContaining({ schedule: expect.objectContaining({ name: "app-account-distribution" }) }),
    );
    expect(decision.schedules).toContainEqual(
      expect.objectContaining({ schedule: expect.objectContaining({ name: "main-operator-deletions" }) }),
    );
  });

  it("drops its key and ends the poll once no roster server holds its JWT: Distributed False, Withdrawn", async () => {
    const observed = await signedAccount();
    const decision = decideAccount(withdrawn(observed, read(["", "", ""])), NOW);
    expect(decision.deleteRequest).toBeUndefined();
    expect(decision.status.publicKey).toBeUndefined();
    expect(decision.status.jwt).toBeUndefined();
    expect(conditionOf(decision.status, "Distributed")).toMatchObject({ status: "False", reason: "Withdrawn" });
    expect(decision.schedules).toContainEqual({
      schedule: { namespace: "auth", name: "app-account-distribution" },
      poll: false,
    });
    expect(decision.schedules).toContainEqual({
      schedule: { namespace: "auth", name: "app-account-renewal" },
      poll: false,
    });
  });

  it("stays Withdrawn once done, though a later delivery reads no key to ask the servers about", async () => {
    const observed = await signedAccount();
    const done = decideAccount(withdrawn(observed, read(["", "", ""])), NOW);
    const again = decideAccount(
      withdrawn({ ...observed, object: { ...observed.object, status: done.status } }, { kind: "off" }),
      NOW,
    );
    expect(conditionOf(again.status, "Distributed")).toMatchObject({ status: "False", reason: "Withdrawn" });
    expect(conditionOf(again.status, "Ready")).toMatchObject({ reason: "ReferenceNotPermitted" });
    expect(again.events).toEqual([]);
  });

  it("without a system connection only empties its JWT and key: nothing was pushed", async () => {
    const observed = await signedAccount();
    const decision = decideAccount(withdrawn(observed, { kind: "off" }), NOW);
    expect(decision.deleteRequest).toBeUndefined();
    expect(decision.status.publicKey).toBeUndefined();
    expect(decision.status.jwt).toBeUndefined();
    expect(conditionOf(decision.status, "Distributed")).toMatchObject({ reason: "NoSystemConnection" });
  });

  it("its users read AccountNotAdmitted and are not signed", async () => {
    const refused = {
      ...accountObject("app"),
      status: {
        conditions: [
          {
            type: "Ready",
            status: "False",
            reason: "ReferenceNotPermitted",
            message: "no grant",
            lastTransitionTime: NOW.toISOString(),
          },
        ],
      },
    } as KubeObject;
    const world = authWorld([operatorObject(), systemAccountObject(), refused, userObject("alice")]);
    const got = await observe(world.kube, { kind: "NatsUser", namespace: "auth", name: "alice" });
    if (!got) throw new Error("no user");
    const decision = decide(got.observed, NOW);
    expect(conditionOf(decision.status, "Ready")).toMatchObject({ status: "False", reason: "AccountNotAdmitted" });
    expect(decision.sign).toEqual([]);
  });

  it("re-admitted, takes its key off the operator's deleted accounts before its JWT is pushed again", async () => {
    const observed = await signedAccount();
    const key = observed.object.status?.publicKey ?? "";
    const operator = observed.operator?.object as NatsOperator;
    const { publicKey: _k, jwt: _j, jwtHash: _h, ...emptied } = observed.object.status ?? {};
    const listed: AccountObserved = {
      ...observed,
      object: { ...observed.object, status: emptied } as NatsAccount,
      operator: {
        ...(observed.operator as NonNullable<AccountObserved["operator"]>),
        object: { ...operator, status: { ...operator.status, deletedAccounts: [{ publicKey: key }] } },
      },
      distribution: read(["", "", ""]),
    };
    const decision = decideAccount(listed, NOW);
    expect(decision.status.publicKey).toBe(key);
    expect(decision.sign).toHaveLength(1);
    expect(decision.forgetDeleted).toEqual({ operator: { namespace: "auth", name: "main" }, publicKey: key });
  });
});
