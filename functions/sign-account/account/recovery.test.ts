import { describe, expect, it } from "@jest/globals";
import { createUser } from "@nats-io/jwt";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../../test/support/auth-world.ts";
import type { AccountDecision, Decision } from "../decision.ts";
import type { DistributionReading } from "../servers/types.ts";
import type { NatsAccount } from "../objects.ts";
import type { AccountObserved } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const ROSTER = ["NA", "NB", "NC"];
const REVOKED = createUser().getPublicKey();
const REVOKED_AT = "2026-12-01T00:00:00Z";

/** Account `app` signed with one revoked user key, observed as a delivery would (no system connection). */
async function revokingAccount(): Promise<AccountObserved> {
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    {
      ...accountObject("app"),
      status: { revocations: [{ publicKey: REVOKED, at: REVOKED_AT }] },
    } as NatsAccount,
  ]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  await world.run("NatsAccount", "app");
  const read = await observe(world.kube, { kind: "NatsAccount", namespace: "auth", name: "app" });
  if (read?.observed.kind !== "NatsAccount") throw new Error("no account");
  return read.observed;
}

/** The same account with a status that lost its JWT and revocations, and what the servers answered. */
function lost(observed: AccountObserved, reading: DistributionReading, kept: Record<string, unknown> = {}) {
  const status = observed.object.status ?? {};
  const object = {
    ...observed.object,
    status: { publicKey: status.publicKey, conditions: status.conditions, ...kept },
  } as NatsAccount;
  return { ...observed, object, distribution: reading };
}

const read = (holdings: string[], roster = ROSTER): DistributionReading => ({
  kind: "read",
  roster,
  polledAt: NOW.toISOString(),
  holdings,
});

const conditionOf = (d: Decision, type: string) =>
  (d.status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === type,
  );

const signedRevocations = (d: AccountDecision) =>
  (d.sign[0]?.request.claims.nats as { revocations?: Record<string, number> } | undefined)?.revocations;

describe("recovering an account's revocations from the servers", () => {
  it("signs a status that lost its JWT and revocations with the revocations of the JWT every server holds", async () => {
    const observed = await revokingAccount();
    const held = observed.object.status?.jwt ?? "";
    const decision = decide(lost(observed, read([held, held, held])), NOW) as AccountDecision;
    expect(signedRevocations(decision)).toEqual({ [REVOKED]: Date.parse(REVOKED_AT) / 1000 });
    // Recovered revocations list the identity among their issuers: no key rotation drops them.
    expect(decision.status.revocations).toEqual([
      { publicKey: REVOKED, at: REVOKED_AT, issuers: expect.arrayContaining([observed.object.status?.publicKey]) },
    ]);
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
    expect(decision.push).toBe(true);
  });

  it("does not sign an account that reached the servers before while a roster server is silent: RecoveringRevocations", async () => {
    const observed = await revokingAccount();
    const held = observed.object.status?.jwt ?? "";
    const decision = decide(
      lost(observed, read([held, held], ["NA", "NB"]), {
        distribution: {
          servers: 3,
          current: 3,
          lastPushTime: "2026-12-02T00:00:00Z",
          roster: ROSTER.map((id) => ({ id })),
        },
      }),
      NOW,
    );
    expect(decision.sign).toEqual([]);
    expect(decision.push).toBeUndefined();
    expect(conditionOf(decision, "Ready")).toMatchObject({ status: "False", reason: "RecoveringRevocations" });
    expect(conditionOf(decision, "Ready")?.message).toContain("1 of 3 servers did not answer the claims lookup");
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({ status: "True" });
    expect(decision.events.map((e) => e.reason)).toEqual(["RecoveringRevocations", "JWTHeld"]);
    expect(decision.schedules).toContainEqual(
      expect.objectContaining({
        schedule: expect.objectContaining({ name: "app-account-distribution" }),
        poll: { every: "10s" },
      }),
    );
  });

  it("keeps counting a silent roster server while held, so it leaves at its third missed poll and recovery goes on", async () => {
    const observed = await revokingAccount();
    const held = observed.object.status?.jwt ?? "";
    let status: Record<string, unknown> = {
      distribution: {
        servers: 3,
        current: 3,
        lastPushTime: "2026-12-02T00:00:00Z",
        roster: [...ROSTER, "NGONE"].map((id) => ({ id })),
      },
    };
    const poll = (n: number): DistributionReading => ({
      kind: "read",
      roster: ROSTER,
      polledAt: `2026-12-03T10:0${n}:00.000Z`,
      holdings: [held, held, held],
    });
    for (const n of [1, 2]) {
      const decision = decide(lost(observed, poll(n), status), NOW) as AccountDecision;
      expect(conditionOf(decision, "Ready")).toMatchObject({ reason: "RecoveringRevocations" });
      expect(decision.status.distribution?.roster).toContainEqual({ id: "NGONE", missedPolls: n });
      status = { distribution: decision.status.distribution };
    }
    const third = decide(lost(observed, poll(3), status), NOW) as AccountDecision;
    expect(signedRevocations(third)).toEqual({ [REVOKED]: Date.parse(REVOKED_AT) / 1000 });
    expect(third.push).toBe(true);
  });

  it("signs an account that never reached a server with RevocationsUnrecovered, and does not push it while a server is silent", async () => {
    const observed = await revokingAccount();
    const decision = decide(lost(observed, { kind: "unreachable", message: "connection refused" }), NOW);
    expect(decision.sign).toHaveLength(1);
    expect(decision.push).toBeUndefined();
    expect(conditionOf(decision, "Ready")).toMatchObject({ status: "True" });
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({
      status: "True",
      reason: "ServersUnanswered",
    });
  });

  it("asks again while RevocationsUnrecovered is True, and pushes once every server answered", async () => {
    const observed = await revokingAccount();
    const unanswered = decide(lost(observed, read([], [])), NOW);
    const jwt = observed.object.status?.jwt ?? "";
    const after = {
      ...observed,
      object: { ...observed.object, status: { ...unanswered.status, jwt } } as NatsAccount,
      distribution: read(["", "", ""]),
    };
    const decision = decide(after, NOW) as AccountDecision;
    expect(conditionOf(decision, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
    expect(decision.push).toBe(true);
  });

  it("recovers nothing from an answer that is not a JWT of this account", async () => {
    const observed = await revokingAccount();
    const decision = decide(lost(observed, read(["garbage", "", ""])), NOW) as AccountDecision;
    expect(signedRevocations(decision)).toBeUndefined();
    expect(conditionOf(decision, "RevocationsUnrecovered")?.message).toContain("nothing to recover");
  });
});
