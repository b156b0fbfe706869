import { describe, expect, it } from "@jest/globals";
import { decideDistribution, distributionPoll } from "./distribution.ts";
import type { DistributionReading } from "./types.ts";
import type { NatsAccount } from "../objects.ts";

/** A JWT-shaped string with the given issue time: only iat is read by the decision. */
const jwtAt = (iat: number, tag = "a") =>
  `eyJ0eXAiOiJKV1QifQ.${Buffer.from(JSON.stringify({ iat, jti: tag })).toString("base64url")}.sig`;

const CURRENT = jwtAt(2_000);
const OLDER = jwtAt(1_000, "old");
const NEWER = jwtAt(3_000, "new");
const ROSTER = ["NA", "NB", "NC"];
const POLLED_AT = "2026-12-03T10:00:00.000Z";
/** The roster status records when every server answered. */
const ANSWERED = ROSTER.map((id) => ({ id }));
const read = (
  holdings: string[],
  extra: Partial<DistributionReading & { kind: "read" }> = {},
): DistributionReading => ({
  kind: "read",
  roster: ROSTER,
  polledAt: POLLED_AT,
  holdings,
  ...extra,
});

const account = {
  apiVersion: "auth.nats-operator.io/v1beta1",
  kind: "NatsAccount",
  metadata: { name: "team", namespace: "auth", uid: "u1" },
  spec: { operatorRef: { name: "main" } },
} as NatsAccount;

describe("distribution of an account JWT", () => {
  it("reads Distributed True, 3 of 3 servers hold this JWT, when every server answers the lookup with it", () => {
    const verdict = decideDistribution(read([CURRENT, CURRENT, CURRENT]), CURRENT, false, undefined);
    expect(verdict.condition).toMatchObject({
      status: "True",
      reason: "AllServersCurrent",
      message: "3 of 3 servers hold this JWT",
    });
    expect(verdict.distribution).toEqual({ servers: 3, current: 3, roster: ANSWERED });
    expect(verdict.push).toBe(false);
    expect(verdict.settled).toBe(true);
  });

  it("pushes a JWT about to be signed and counts no server as holding it yet", () => {
    const verdict = decideDistribution(read([OLDER, OLDER, OLDER]), undefined, true, {
      servers: 3,
      current: 3,
      lastPushTime: "2026-01-01T00:00:00Z",
    });
    expect(verdict.push).toBe(true);
    expect(verdict.distribution).toEqual({
      servers: 3,
      current: 0,
      lastPushTime: "2026-01-01T00:00:00Z",
      roster: ANSWERED,
    });
    expect(verdict.condition).toMatchObject({ status: "False", reason: "ServersBehind" });
    expect(verdict.settled).toBe(false);
  });

  it("pushes again to a server that lags behind", () => {
    const verdict = decideDistribution(read([CURRENT, CURRENT, OLDER]), CURRENT, false, undefined);
    expect(verdict.push).toBe(true);
    expect(verdict.condition.message).toBe("2 of 3 servers hold this JWT");
  });

  it("records lastPushTime only from a push a server acknowledged", () => {
    const acked = decideDistribution(
      read([CURRENT, CURRENT, CURRENT], { lastPush: { at: "2026-12-03T08:00:00.000Z", acknowledged: 3, refused: [] } }),
      CURRENT,
      false,
      undefined,
    );
    expect(acked.distribution?.lastPushTime).toBe("2026-12-03T08:00:00.000Z");
    const unanswered = decideDistribution(
      read([], { lastPush: { at: "2026-12-03T08:00:00.000Z", acknowledged: 0, refused: [] } }),
      CURRENT,
      false,
      undefined,
    );
    expect(unanswered.distribution?.lastPushTime).toBeUndefined();
    // Once pushed in a delivery, the poll checks again instead of pushing in a loop.
    expect(unanswered.push).toBe(false);
    expect(unanswered.settled).toBe(false);
  });

  it("never pushes an older JWT over a newer one a server holds: NewerJWTHeld", () => {
    const verdict = decideDistribution(read([NEWER, CURRENT, CURRENT]), CURRENT, false, undefined);
    expect(verdict.push).toBe(false);
    expect(verdict.condition.reason).toBe("NewerJWTHeld");
  });

  it("shows a server's refusal as PushRefused and does not push again in the same delivery", () => {
    const verdict = decideDistribution(
      read(["", "", ""], { lastPush: { at: "2026-12-03T08:00:00.000Z", acknowledged: 0, refused: ["s-0: bad"] } }),
      CURRENT,
      false,
      undefined,
    );
    expect(verdict.condition).toMatchObject({ reason: "PushRefused" });
    expect(verdict.condition.message).toContain("s-0: bad");
    expect(verdict.push).toBe(false);
  });

  it("pushes nothing without a system connection: NoSystemConnection", () => {
    const verdict = decideDistribution({ kind: "off" }, CURRENT, false, undefined);
    expect(verdict.condition).toMatchObject({ status: "False", reason: "NoSystemConnection" });
    expect(verdict.push).toBe(false);
    expect(verdict.settled).toBe(true);
  });

  it("reads Unreachable when the system connection cannot reach the servers, and keeps polling", () => {
    const down = decideDistribution({ kind: "unreachable", message: "cannot connect" }, CURRENT, false, undefined);
    expect(down.condition).toMatchObject({ reason: "Unreachable", message: "cannot connect" });
    expect(down.settled).toBe(false);
    const silent = decideDistribution(read([], { roster: [] }), CURRENT, false, undefined);
    expect(silent.condition.reason).toBe("Unreachable");
    expect(silent.push).toBe(false);
  });

  it("polls only while a push is unconfirmed: at rest there is no PingSource", () => {
    expect(distributionPoll(account, true)).toEqual({
      schedule: { namespace: "auth", name: "team-account-distribution" },
      poll: false,
    });
    expect(distributionPoll(account, false)).toMatchObject({
      schedule: { name: "team-account-distribution", target: "sign-account" },
      poll: { every: "10s" },
    });
  });
});
