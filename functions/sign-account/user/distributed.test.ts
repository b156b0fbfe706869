// A20: a user's Distributed condition follows its account's distribution, and its Ready waits for
// it whenever a system connection is configured, so a client connecting once the user is Ready is
// accepted by every server.
import { describe, expect, it } from "@jest/globals";
import { accountObject, operatorObject, systemAccountObject, userObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../../test/support/auth-world.ts";
import { jwtHash } from "../jwt/hash.ts";
import type { NatsAccount } from "../objects.ts";
import { userDistribution } from "./distributed.ts";
import type { UserObserved } from "./types.ts";

type Condition = { type: string; status: string; reason: string; message: string };
const conditionOf = (status: unknown, type: string) =>
  (status as { conditions?: Condition[] }).conditions?.find((c) => c.type === type);

/** A world where account `app` is signed and user `alice` observed, with the account's status as `spread` says. */
async function observedAlice(spread: { servers: number; current: number; hash?: "stale" }) {
  const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app"), userObject("alice")]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  await world.run("NatsAccount", "app");
  const read = await observe(world.kube, { kind: "NatsUser", namespace: "auth", name: "alice" });
  const observed = read?.observed as UserObserved;
  if (!observed.account) throw new Error("alice's account was not observed");
  const account = observed.account.object as NatsAccount;
  const jwt = account.status?.jwt ?? "";
  const everywhere = spread.current === spread.servers && spread.servers > 0;
  const status = {
    ...account.status,
    jwtHash: spread.hash === "stale" ? "0".repeat(64) : jwtHash(jwt),
    distribution: { servers: spread.servers, current: spread.current },
    conditions: [
      {
        type: "Distributed",
        status: everywhere ? "True" : "False",
        reason: everywhere ? "AllServersCurrent" : "ServersBehind",
        message: `${spread.current} of ${spread.servers} servers hold this JWT`,
        lastTransitionTime: "2026-12-07T00:00:00Z",
      },
    ],
  } as NatsAccount["status"];
  const withStatus = { ...account, ...(status ? { status } : {}) } as NatsAccount;
  return {
    observed: { ...observed, account: { ...observed.account, object: withStatus }, systemConnection: true },
    account: withStatus,
  };
}

describe("a user's Distributed condition and Ready (A20)", () => {
  it("reads NoSystemConnection, and Ready once signed, when no system connection is configured", async () => {
    const { observed } = await observedAlice({ servers: 3, current: 0 });
    const decision = decide({ ...observed, systemConnection: false }, new Date());
    expect(conditionOf(decision.status, "Distributed")?.reason).toBe("NoSystemConnection");
    expect(conditionOf(decision.status, "Ready")?.status).toBe("True");
  });

  it("waits, Ready=False Pending, while some server lacks the account's JWT; its creds are written meanwhile", async () => {
    const { observed } = await observedAlice({ servers: 3, current: 2 });
    const decision = decide(observed, new Date());
    expect(conditionOf(decision.status, "Distributed")).toMatchObject({ status: "False", reason: "Distributing" });
    expect(conditionOf(decision.status, "Distributed")?.message).toContain("2 of 3 servers hold it (ServersBehind");
    const ready = conditionOf(decision.status, "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "Pending" });
    expect(ready?.message).toContain("waiting for every server to hold NatsAccount auth/app's JWT");
    // Signed meanwhile (and revocable), with no Warning: it only waits.
    expect(decision.kind === "NatsUser" && decision.creds?.secret).toBe("alice-creds");
    expect(decision.kind === "NatsUser" && decision.finalizer).toBe("add");
    expect(decision.events).toEqual([]);
  });

  it("reads Distributed=True and Ready=True once every roster server holds the JWT it is valid under", async () => {
    const { observed } = await observedAlice({ servers: 3, current: 3 });
    const decision = decide(observed, new Date());
    expect(conditionOf(decision.status, "Distributed")).toMatchObject({ status: "True", reason: "AllServersCurrent" });
    expect(conditionOf(decision.status, "Ready")).toMatchObject({ status: "True", reason: "Signed" });
  });

  it("waits while the account's counted JWT (status.jwtHash) is not the JWT in status", async () => {
    const { observed } = await observedAlice({ servers: 3, current: 3, hash: "stale" });
    const decision = decide(observed, new Date());
    expect(conditionOf(decision.status, "Distributed")?.message).toContain("to count the servers holding its new JWT");
    expect(conditionOf(decision.status, "Ready")?.status).toBe("False");
  });

  it("waits for an account JWT listing the user's signing key, of the user's account key", async () => {
    const { account } = await observedAlice({ servers: 3, current: 3 });
    const jwt = account.status?.jwt;
    const unknownSigner = "ADZ3PRCE7L6ULNVNYRHBKV3PLHKAMYAQ6UVTHNRGPKIDDC3Q2DBVTWHD";
    const stranger = userDistribution(account, "NatsAccount auth/app", jwt, unknownSigner, true);
    expect(stranger.condition).toMatchObject({ status: "False", reason: "Distributing" });
    expect(stranger.waitsFor).toContain(`to sign a JWT listing signing key ${unknownSigner}`);
    const identity = account.status?.publicKey ?? "";
    const otherKey = { ...account, status: { ...account.status, publicKey: unknownSigner } } as NatsAccount;
    expect(userDistribution(otherKey, "NatsAccount auth/app", jwt, identity, true).waitsFor).toBeDefined();
    expect(userDistribution(account, "NatsAccount auth/app", undefined, identity, true).waitsFor).toBeDefined();
  });

  it("reads NotSigned for a refused user when a system connection is configured", async () => {
    const { observed } = await observedAlice({ servers: 3, current: 3 });
    const decision = decide({ ...observed, account: undefined } as UserObserved, new Date());
    expect(conditionOf(decision.status, "Ready")?.reason).toBe("ReferenceNotFound");
    expect(conditionOf(decision.status, "Distributed")?.reason).toBe("NotSigned");
  });
});
