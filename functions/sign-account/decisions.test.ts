import { describe, expect, it } from "@jest/globals";
import { createAccount, createOperator, createUser, decode as decodeJwt } from "@nats-io/jwt";
import type { KubeObject } from "../../shared/kube/index.ts";
import {
  accountObject,
  operatorObject,
  secretObject,
  systemAccountObject,
  userObject,
} from "../../test/fixtures/auth/objects.ts";
import { authWorld, decide, observe } from "../../test/support/auth-world.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import type { Decision } from "./decision.ts";
import type { Subject } from "./objects.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const seedOf = (pair: { getSeed(): Uint8Array }) => new TextDecoder().decode(pair.getSeed());
const ready = (d: Decision) =>
  (d.status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions?.find(
    (c) => c.type === "Ready",
  );

/** The decision for one object over `objects`, observed the way a delivery observes. */
async function decisionFor(objects: KubeObject[], kind: Subject["kind"], name: string, now = NOW) {
  const read = await observe(memoryKube(objects), { kind, namespace: "auth", name });
  if (!read) throw new Error(`${kind} ${name} not found`);
  return decide(read.observed, now);
}

/** What observe reads for an object that exists. */
async function observed(kube: Parameters<typeof observe>[0], kind: Subject["kind"], name: string) {
  const read = await observe(kube, { kind, namespace: "auth", name });
  if (!read) throw new Error(`${kind} ${name} not found`);
  return read.observed;
}

const withStatus = (object: KubeObject, status: Record<string, unknown>): KubeObject =>
  ({ ...object, status }) as KubeObject;

describe("sign-account decisions", () => {
  it("asks for an identity and a signing key for an object without keys, and signs nothing yet", async () => {
    const decision = await decisionFor([operatorObject(), systemAccountObject()], "NatsOperator", "main");
    expect(decision.generate).toEqual([
      { secret: "main-operator-identity", role: "operator", slot: "identity" },
      { secret: "main-operator-signing-1", role: "operator", slot: "signing-1" },
    ]);
    expect(decision.sign).toEqual([]);
  });

  it("leaves a Secret of a generated name that is not annotated for the object alone: SecretConflict", async () => {
    const foreign = secretObject("main-operator-identity", { seed: seedOf(createOperator()) });
    const decision = await decisionFor([operatorObject(), systemAccountObject(), foreign], "NatsOperator", "main");
    expect(decision.generate).toEqual([]);
    expect(ready(decision)).toMatchObject({ status: "False", reason: "SecretConflict" });
    expect(decision.events).toEqual([expect.objectContaining({ type: "Warning", reason: "SecretConflict" })]);
  });

  it("mints no new identity once status.publicKey recorded the one whose Secret is gone: SeedLost", async () => {
    const recorded = withStatus(accountObject("app"), { publicKey: createAccount().getPublicKey() });
    const decision = await decisionFor([operatorObject(), recorded], "NatsAccount", "app");
    expect(decision.generate).toEqual([]);
    expect(ready(decision)).toMatchObject({ status: "False", reason: "SeedLost" });
    expect(ready(decision)?.message).toContain("app-account-identity");
  });

  it("refuses a seed of the wrong kind without repeating it: InvalidKeys", async () => {
    const user = seedOf(createUser());
    const adopted = accountObject("app", { keys: { identity: { secretKeyRef: { name: "mine", key: "seed" } } } });
    const decision = await decisionFor(
      [operatorObject(), adopted, secretObject("mine", { seed: user })],
      "NatsAccount",
      "app",
    );
    expect(ready(decision)).toMatchObject({ status: "False", reason: "InvalidKeys" });
    expect(JSON.stringify(decision)).not.toContain(user);
  });

  it("waits for an adopted seed Secret that does not exist yet: KeysPending", async () => {
    const adopted = accountObject("app", { keys: { identity: { secretKeyRef: { name: "later", key: "seed" } } } });
    const decision = await decisionFor([operatorObject(), adopted], "NatsAccount", "app");
    expect(ready(decision)).toMatchObject({ status: "False", reason: "KeysPending" });
  });

  it("leaves an account in another namespace without a grant unsigned and unkeyed: ReferenceNotPermitted", async () => {
    const elsewhere = accountObject("app", { operatorRef: { name: "main", namespace: "platform" } });
    const decision = await decisionFor([elsewhere], "NatsAccount", "app");
    expect(ready(decision)).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(decision.generate).toEqual([]);
    expect(decision.status).not.toHaveProperty("publicKey");
  });

  it("keeps an account key for the older account that recorded it: PublicKeyInUse", async () => {
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("first")]);
    await world.run("NatsAccount", "first");
    const identity = await world.get<KubeObject & { data: Record<string, string> }>(
      "v1",
      "Secret",
      "first-account-identity",
    );
    const copy = accountObject(
      "second",
      { keys: { identity: { secretKeyRef: { name: "first-account-identity", key: "seed" } } } },
      "2026-02-01T00:00:00Z",
    );
    await world.kube.create(copy);
    expect(identity).toBeDefined();
    // The first pass generates its signing key; the second decides.
    await world.run("NatsAccount", "second");
    const decision = decide(await observed(world.kube, "NatsAccount", "second"), NOW);
    expect(ready(decision)).toMatchObject({ status: "False", reason: "PublicKeyInUse" });
    expect(decision.status).not.toHaveProperty("publicKey");
    expect(ready(decision)?.message).toContain("NatsAccount auth/first");
  });

  it("re-signs an expiring account at half its TTL and schedules that tick, and not before", async () => {
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app", { jwtTTL: "2h" })]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    const signedAt = new Date();
    await world.run("NatsAccount", "app", signedAt);
    const read = async () => await observed(world.kube, "NatsAccount", "app");
    const early = decide(await read(), new Date(signedAt.getTime() + 30 * 60_000));
    expect(early.sign).toEqual([]);
    expect(early.schedules).toEqual([
      expect.objectContaining({
        schedule: expect.objectContaining({ name: "app-account-renewal" }),
        poll: { cron: expect.any(String) },
      }),
    ]);
    const late = decide(await read(), new Date(signedAt.getTime() + 61 * 60_000));
    expect(late.sign).toHaveLength(1);
  });

  it("signs a never-expiring JWT for jwtTTL 0s, with no renewal tick", async () => {
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app", { jwtTTL: "0s" })]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "app");
    const signed = await world.get<KubeObject & { status?: { jwt?: string; jwtExpires?: string } }>(
      "auth.nats-operator.io/v1beta1",
      "NatsAccount",
      "app",
    );
    expect(decodeJwt(signed?.status?.jwt ?? "").exp).toBeUndefined();
    expect(signed?.status).not.toHaveProperty("jwtExpires");
    const read = await observed(world.kube, "NatsAccount", "app");
    const decision = decide(read, NOW);
    expect(decision.sign).toEqual([]);
    expect(decision.schedules).toEqual([{ schedule: { namespace: "auth", name: "app-account-renewal" }, poll: false }]);
  });

  it("never overwrites a creds Secret the user does not own: SecretConflict", async () => {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      accountObject("app"),
      userObject("alice"),
      secretObject("alice-creds", { "user.creds": "mine" }),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "app");
    const read = await observed(world.kube, "NatsUser", "alice");
    const decision = decide(read, NOW);
    expect(ready(decision)).toMatchObject({ status: "False", reason: "SecretConflict" });
    expect(decision.creds).toBeUndefined();
  });

  it("signs a user with its own publicKey into status.jwt and writes no Secret", async () => {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      accountObject("app"),
      userObject("bob", { publicKey: createUser().getPublicKey(), preset: "readonly" }),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "app");
    const read = await observed(world.kube, "NatsUser", "bob");
    const decision = decide(read, NOW);
    expect(decision.creds).toBeUndefined();
    expect(decision.sign.map((s) => s.into)).toEqual(["jwt"]);
    expect(decision.sign[0]?.request.claims.nats).toMatchObject({
      pub: { allow: expect.arrayContaining(["$JS.API.STREAM.INFO.*"]) },
      sub: { allow: ["_INBOX.readonly.>"] },
    });
  });

  it("decides the same twice from the same observation", async () => {
    const objects = [operatorObject(), systemAccountObject()];
    expect(await decisionFor(objects, "NatsOperator", "main")).toEqual(
      await decisionFor(objects, "NatsOperator", "main"),
    );
  });
});
