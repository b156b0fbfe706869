import { describe, expect, it } from "@jest/globals";
import { decode, parseCreds, type ClaimsData } from "@nats-io/jwt";
import type { Kube, KubeObject } from "../../shared/kube/index.ts";
import {
  accountObject,
  operatorObject,
  operatorTrustObject,
  systemAccountObject,
  userObject,
} from "../../test/fixtures/auth/objects.ts";
import { authWorld, reconcile } from "../../test/support/auth-world.ts";

const AUTH = "auth.nats-operator.io/v1beta1";
type WithStatus = KubeObject & {
  status?: Record<string, unknown> & { conditions?: { type: string; reason: string }[] };
};
type Secret = KubeObject & { data?: Record<string, string> };

const CHAIN = [
  ["NatsSystemAccount", "sys"],
  ["NatsOperator", "main"],
  ["NatsOperatorTrust", "main"],
  ["NatsAccount", "app"],
  ["NatsUser", "alice"],
  ["NatsUser", "sys-user"],
] as const;

/** The whole chain, reconciled in the order its events would come. */
async function signedChain(extra: KubeObject[] = []) {
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    accountObject("app", { limits: { connections: 10, jetstream: { diskStorage: "1Gi" } } }),
    userObject("alice", { permissions: { publish: { allow: ["orders.>"] } } }),
    userObject("sys-user", { accountRef: { kind: "NatsSystemAccount", name: "sys" }, preset: "cluster-controller" }),
    operatorTrustObject(),
    ...extra,
  ]);
  // Twice: what an object reads from another signed later is picked up on the second round.
  for (let round = 0; round < 2; round++)
    for (const [kind, name] of CHAIN) expect((await world.run(kind, name)).kind).toBe("done");
  return world;
}

const seedsIn = async (world: ReturnType<typeof authWorld>) => {
  const secrets = await world.kube.list<Secret>({ apiVersion: "v1", kind: "Secret", namespace: "auth" });
  const seeds: string[] = [];
  for (const s of secrets)
    for (const value of Object.values(s.data ?? {})) {
      const text = Buffer.from(value, "base64").toString("utf8");
      seeds.push(...(text.match(/(?<![A-Z2-7])S[OAU][A-Z2-7]{56}(?![A-Z2-7])/g) ?? []));
    }
  return seeds;
};

const WRITES = new Set(["apply", "applyStatus", "replaceStatus", "replace", "patch", "create", "delete"]);

/** `kube`, but its first write is followed by `between` (another delivery running to its end). */
function interleaved(kube: Kube, between: () => Promise<unknown>): Kube {
  let pending = true;
  return new Proxy(kube, {
    get(target, name, receiver) {
      const member: unknown = Reflect.get(target, name, receiver);
      if (typeof member !== "function") return member;
      const method = (...args: unknown[]) => (member as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      if (!WRITES.has(String(name))) return method;
      return async (...args: unknown[]) => {
        const result = await method(...args);
        if (pending) {
          pending = false;
          await between();
        }
        return result;
      };
    },
  });
}

describe("sign-account acting on its decisions", () => {
  it("generates keys into annotated Secrets without owner references and records them in status", async () => {
    const world = await signedChain();
    const identity = await world.get<Secret>("v1", "Secret", "main-operator-identity");
    expect(identity?.metadata.annotations).toEqual({ "auth.nats-operator.io/generated-for": "operator/main" });
    expect(identity?.metadata.ownerReferences).toBeUndefined();
    expect(identity?.metadata.labels).toEqual({ "app.kubernetes.io/managed-by": "nats-operator" });
    expect(await world.get("v1", "Secret", "app-account-signing-1")).toBeDefined();
    expect(await world.get("v1", "Secret", "sys-systemaccount-identity")).toBeDefined();
    const operator = await world.get<WithStatus>(AUTH, "NatsOperator", "main");
    expect(operator?.status?.["seedSecrets"]).toEqual({
      identity: "main-operator-identity",
      signing: ["main-operator-signing-1"],
    });
    expect(operator?.status?.["publicKey"]).toMatch(/^O/);
  });

  it("signs the account with the operator's signing key, never its identity, expiring after jwtTTL", async () => {
    const world = await signedChain();
    const operator = await world.get<WithStatus>(AUTH, "NatsOperator", "main");
    const account = await world.get<WithStatus>(AUTH, "NatsAccount", "app");
    const claims = decode<Record<string, unknown>>(String(account?.status?.["jwt"]));
    const signing = operator?.status?.["signingKeys"] as string[];
    expect(claims.iss).toBe(signing[0]);
    expect(claims.iss).not.toBe(operator?.status?.["publicKey"]);
    expect(claims.sub).toBe(account?.status?.["publicKey"]);
    expect((claims.exp ?? 0) - claims.iat).toBe(48 * 3600);
    // What kube-state-metrics reads as the account's expiry: the JWT's exp claim, RFC 3339.
    expect(account?.status?.["jwtExpires"]).toBe(
      new Date((claims.exp ?? 0) * 1000).toISOString().replace(".000Z", "Z"),
    );
    expect(claims.nats["limits"]).toMatchObject({ conn: 10, subs: -1, disk_storage: 1024 ** 3, mem_storage: -1 });
    const op = decode<Record<string, unknown>>(String(operator?.status?.["jwt"]));
    expect(op.iss).toBe(op.sub);
    expect(op.nats["system_account"]).toBe((operator?.status?.["systemAccount"] as { publicKey: string }).publicKey);
    expect(op.exp).toBeUndefined();
  });

  it("writes a creds file the nats CLI reads, owned by the user, with the preset's permissions", async () => {
    const world = await signedChain();
    const secret = await world.get<Secret>("v1", "Secret", "sys-user-creds");
    // Not blocking the user's deletion: that would take `update` on natsusers/finalizers, which
    // sign-account's ClusterRole does not hold (OwnerReferencesPermissionEnforcement).
    expect(secret?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "NatsUser",
      name: "sys-user",
      controller: true,
      blockOwnerDeletion: false,
    });
    const creds = await parseCreds(Buffer.from(secret?.data?.["user.creds"] ?? "", "base64"));
    const system = await world.get<WithStatus>(AUTH, "NatsSystemAccount", "sys");
    expect(creds.aid).toBe(system?.status?.["publicKey"]);
    expect(creds.uc.nats.sub).toEqual({ allow: ["_INBOX.cluster-controller.>"] });
    expect(creds.uc.nats.pub?.allow).toContain("$SYS.REQ.SERVER.*.RELOAD");
    const user = await world.get<WithStatus>(AUTH, "NatsUser", "sys-user");
    expect(user?.status?.["publicKey"]).toBe(creds.uc.sub);
  });

  it("mirrors the operator's and system account's JWTs into the reference-form trust", async () => {
    const world = await signedChain();
    const operator = await world.get<WithStatus>(AUTH, "NatsOperator", "main");
    const trust = await world.get<WithStatus>("nats-operator.io/v1beta1", "NatsOperatorTrust", "main");
    expect(trust?.status?.["operatorJWT"]).toBe(operator?.status?.["jwt"]);
    expect(trust?.status?.["systemAccountJWT"]).toBe((operator?.status?.["systemAccount"] as { jwt: string }).jwt);
    expect(trust?.status?.conditions?.find((c) => c.type === "Ready")?.reason).toBe("Mirrored");
  });

  it("re-signs nothing and writes nothing when a reconcile finds everything as signed", async () => {
    const world = await signedChain();
    const before = world.kube.writes.length;
    for (const [kind, name] of CHAIN) await world.run(kind, name);
    expect(world.kube.writes.slice(before)).toEqual([]);
  });

  it("gives a new user one key when two deliveries sign it at once, and revokes none", async () => {
    const world = await signedChain([userObject("bob")]);
    const recorder = { record: async () => undefined };
    const bob = { kind: "NatsUser" as const, namespace: "auth", name: "bob" };
    // The second delivery runs whole between the first one's first write and the rest of it.
    const second = () => reconcile(world.kube as Kube, recorder, bob, new Date());
    await reconcile(interleaved(world.kube as Kube, second), recorder, bob, new Date());
    await world.run("NatsUser", "bob");
    await world.run("NatsAccount", "app");

    const user = await world.get<WithStatus>(AUTH, "NatsUser", "bob");
    const secret = await world.get<Secret>("v1", "Secret", "bob-creds");
    const creds = await parseCreds(Buffer.from(secret?.data?.["user.creds"] ?? "", "base64"));
    expect(user?.status?.["publicKey"]).toBe(creds.uc.sub);
    expect(user?.status?.["replacedKeys"]).toBeUndefined();
    const account = await world.get<WithStatus>(AUTH, "NatsAccount", "app");
    expect(account?.status?.["revocations"]).toBeUndefined();
    expect(decode<Record<string, unknown>>(String(account?.status?.["jwt"])).nats["revocations"]).toBeUndefined();
  });

  it("records a new operator's keys in one delivery even when another writes it between that delivery's passes", async () => {
    const world = authWorld([operatorObject()]);
    const operator = { apiVersion: AUTH, kind: "NatsOperator", namespace: "auth", name: "main" };
    // Just before the status write of the pass that signs (the pass after the seeds were made),
    // another delivery writes the operator: the write this pass was decided on is now stale.
    let statusWrites = 0;
    const racing = new Proxy(world.kube as Kube, {
      get(target, name, receiver) {
        const member: unknown = Reflect.get(target, name, receiver);
        if (typeof member !== "function") return member;
        if (name !== "replaceStatus" && name !== "applyStatus") return member.bind(target);
        return async (...args: unknown[]) => {
          if (statusWrites++ === 0) {
            const current = await target.get<WithStatus>(operator);
            await target.patch(
              operator,
              { metadata: { labels: { touched: String(current?.metadata.resourceVersion) } } },
              "merge",
            );
          }
          return (member as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const answer = await reconcile(
      racing,
      { record: async () => undefined },
      { kind: "NatsOperator", namespace: "auth", name: "main" },
      new Date(),
    );
    expect(answer.kind).toBe("done");
    expect(statusWrites).toBeGreaterThan(1);
    const status = (await world.get<WithStatus>(AUTH, "NatsOperator", "main"))?.status;
    expect(status?.["publicKey"]).toEqual(expect.stringMatching(/^O[A-Z2-7]{55}$/));
  });

  it("never shows a seed in a status or an Event", async () => {
    const world = await signedChain([
      accountObject("broken", { keys: { identity: { secretKeyRef: { name: "x", key: "seed" } } } }),
    ]);
    await world.run("NatsAccount", "broken");
    const seeds = await seedsIn(world);
    expect(seeds.length).toBeGreaterThanOrEqual(8);
    const shown = JSON.stringify([
      world.events,
      ...(await Promise.all(
        (["NatsOperator", "NatsSystemAccount", "NatsAccount", "NatsUser"] as const).map((kind) =>
          world.kube.list({ apiVersion: AUTH, kind }),
        ),
      )),
    ]);
    for (const seed of seeds) expect(shown).not.toContain(seed);
    expect(shown).not.toMatch(/(?<![A-Z2-7])S[OAU][A-Z2-7]{56}(?![A-Z2-7])/);
  });
});

export type { ClaimsData };
