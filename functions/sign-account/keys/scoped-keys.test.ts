import { describe, expect, it } from "@jest/globals";
import { createAccount, createOperator, decode, type KeyPair } from "@nats-io/jwt";
import {
  accountObject,
  operatorObject,
  secretObject,
  systemAccountObject,
  userObject,
} from "../../../test/fixtures/auth/objects.ts";
import { authWorld } from "../../../test/support/auth-world.ts";
import { parseCreds } from "../user/creds.ts";
import type { NatsAccount, NatsOperator, NatsUser } from "../objects.ts";

const AUTH = "auth.nats-operator.io/v1beta1";
const NOW = new Date("2026-12-03T10:00:00.000Z");

const seedOf = (pair: KeyPair) => new TextDecoder().decode(pair.getSeed());
const ref = (name: string) => ({ secretKeyRef: { name, key: "seed" } });

const DEV_SCOPE = {
  role: "dev",
  permissions: { publish: { allow: ["dev.>"] }, subscribe: { allow: ["_INBOX.>", "dev.>"], deny: ["dev.secret"] } },
  connectionTypes: ["STANDARD"],
  limits: { subscriptions: 10, payload: "1Ki" },
};

/** Account `app` with a plain signing key and a scoped one of role `dev`, adopted from Secrets. */
function scopedWorld(extra: ReturnType<typeof userObject>[] = []) {
  const [identity, plain, scoped] = [createAccount(), createAccount(), createAccount()];
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    secretObject("app-keys-identity", { seed: seedOf(identity) }),
    secretObject("app-keys-plain", { seed: seedOf(plain) }),
    secretObject("app-keys-dev", { seed: seedOf(scoped) }),
    accountObject("app", {
      keys: {
        identity: ref("app-keys-identity"),
        signing: [
          { name: "plain", ...ref("app-keys-plain") },
          { name: "dev", ...ref("app-keys-dev"), scope: DEV_SCOPE },
        ],
      },
    }),
    ...extra,
  ]);
  const keys = { identity: identity.getPublicKey(), plain: plain.getPublicKey(), scoped: scoped.getPublicKey() };
  return { world, keys };
}

async function signChain(world: ReturnType<typeof authWorld>, users: string[]) {
  for (const [kind, name] of [
    ["NatsSystemAccount", "sys"],
    ["NatsOperator", "main"],
    ["NatsAccount", "app"],
    ...users.map((u) => ["NatsUser", u] as const),
  ] as const)
    expect((await world.run(kind, name, NOW)).kind).toBe("done");
}

const readyOf = (o: {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
}) => o.status?.conditions?.find((c) => c.type === "Ready");

async function userJwt(world: ReturnType<typeof authWorld>, name: string) {
  const secret = await world.get<{ data?: Record<string, string> } & NatsUser>("v1", "Secret", `${name}-creds`);
  const creds = parseCreds(Buffer.from(secret?.data?.["user.creds"] ?? "", "base64").toString("utf8"));
  return decode<Record<string, unknown>>(creds?.jwt ?? "");
}

describe("a scoped signing key of a NatsAccount", () => {
  it("is listed in the account JWT as a user scope carrying its role and template; a plain key as its public key", async () => {
    const { world, keys } = scopedWorld();
    await signChain(world, []);
    const account = await world.get<NatsAccount>(AUTH, "NatsAccount", "app");
    expect(readyOf(account ?? {})).toMatchObject({ status: "True" });
    const claims = decode<{ signing_keys?: unknown[] }>(account?.status?.jwt ?? "");
    expect(claims.nats.signing_keys).toEqual([
      keys.plain,
      {
        kind: "user_scope",
        key: keys.scoped,
        role: "dev",
        template: {
          pub: { allow: ["dev.>"] },
          sub: { allow: ["_INBOX.>", "dev.>"], deny: ["dev.secret"] },
          subs: 10,
          data: -1,
          payload: 1024,
          allowed_connection_types: ["STANDARD"],
        },
      },
    ]);
    // The account JWT is signed by the operator, never by one of its own keys.
    expect(claims.iss).toBe((await world.get<NatsOperator>(AUTH, "NatsOperator", "main"))?.status?.signingKeys?.[0]);
  });

  it("signs a NatsUser naming its role, whose JWT carries no permissions or limits of its own", async () => {
    const { world, keys } = scopedWorld([userObject("dev-1", { role: "dev" })]);
    await signChain(world, ["dev-1"]);
    const user = await world.get<NatsUser>(AUTH, "NatsUser", "dev-1");
    expect(readyOf(user ?? {})).toMatchObject({ status: "True", message: expect.stringContaining("role dev") });
    const jwt = await userJwt(world, "dev-1");
    expect(jwt.iss).toBe(keys.scoped);
    expect(jwt.nats).toEqual({ type: "user", version: 2, issuer_account: keys.identity });
  });

  it("signs no user without a role: those are signed by the first plain key", async () => {
    const { world, keys } = scopedWorld([userObject("plain-1", { permissions: { publish: { allow: ["a"] } } })]);
    await signChain(world, ["plain-1"]);
    const jwt = await userJwt(world, "plain-1");
    expect(jwt.iss).toBe(keys.plain);
    expect(jwt.nats).toMatchObject({ pub: { allow: ["a"] }, subs: -1 });
  });

  it("leaves a NatsUser naming a role no key has unsigned: Ready False, RoleNotFound, with a Warning Event", async () => {
    const { world } = scopedWorld([userObject("ops-1", { role: "ops" })]);
    await signChain(world, ["ops-1"]);
    const user = await world.get<NatsUser>(AUTH, "NatsUser", "ops-1");
    expect(readyOf(user ?? {})).toMatchObject({
      status: "False",
      reason: "RoleNotFound",
      message: expect.stringContaining("no scoped signing key of role ops"),
    });
    expect(await world.get("v1", "Secret", "ops-1-creds")).toBeUndefined();
    expect(world.events).toContainEqual(expect.stringContaining("NatsUser ops-1 Warning RoleNotFound"));
  });

  it("is not enough alone: an account whose only signing key is scoped is refused with InvalidKeys", async () => {
    const scoped = createAccount();
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      secretObject("only-dev", { seed: seedOf(scoped) }),
      accountObject("app", { keys: { signing: [{ name: "dev", ...ref("only-dev"), scope: { role: "dev" } }] } }),
    ]);
    await world.run("NatsSystemAccount", "sys", NOW);
    await world.run("NatsOperator", "main", NOW);
    await world.run("NatsAccount", "app", NOW);
    const account = await world.get<NatsAccount>(AUTH, "NatsAccount", "app");
    expect(readyOf(account ?? {})).toMatchObject({
      status: "False",
      reason: "InvalidKeys",
      message: expect.stringContaining("no signing key that is neither retiring nor scoped"),
    });
  });

  it("on a NatsOperator is refused with InvalidKeys: operator signing keys take no scope", async () => {
    const signing = createOperator();
    const world = authWorld([
      secretObject("op-signing", { seed: seedOf(signing) }),
      operatorObject({ keys: { signing: [{ name: "s", ...ref("op-signing"), scope: { role: "dev" } }] } }),
      systemAccountObject(),
    ]);
    await world.run("NatsOperator", "main", NOW);
    const operator = await world.get<NatsOperator>(AUTH, "NatsOperator", "main");
    expect(readyOf(operator ?? {})).toMatchObject({ status: "False", reason: "InvalidKeys" });
  });
});
