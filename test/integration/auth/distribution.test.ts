// harness: real node
// Story 2's second half: with a system connection configured, sign-account pushes a NatsAccount's
// JWT to every server of a 3-server operator-mode JetStream cluster over $SYS, shows which servers
// hold it, a NatsStream on a NatsConnection with an account user's creds is made in that account,
// and a limit change reaches them all without a restart; deleting a user revokes its key
// and closes its connections, and a user's lost key is revoked; deleting the account deletes its
// JWT from every server's resolver before the object goes. No JWT is made by test code.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { signAccount } from "../../../functions/sign-account/index.ts";
import { syncStream } from "../../../functions/sync-stream/index.ts";
import {
  SYSTEM_CONNECTION_ENV,
  kickConnections,
  openSystemConnection,
  readConnections,
} from "../../../functions/sign-account/servers/system-connection.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { CORE, JS, resource, waitForCondition } from "../jetstream/support/objects.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { condition, quickstart, waitAtRest } from "../cluster/support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { waitFor } from "../../harness/wait.ts";
import { replies } from "../support/replies.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let admin: NatsConnection | undefined;
/** The account deleted by the fourth test: its key and last JWT. */
let deleted = { key: "", jwt: "" };
const previousEnv = process.env[SYSTEM_CONNECTION_ENV];

type Secret = KubeObject & { data?: Record<string, string> };
type Account = KubeObject & {
  spec: Record<string, unknown>;
  status?: {
    jwt?: string;
    jwtHash?: string;
    publicKey?: string;
    distribution?: { servers?: number; current?: number; lastPushTime?: string };
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
};

const AUTH = "auth.nats-operator.io/v1beta1";
const CLUSTER = "dist";
const servers = () => [0, 1, 2].map((i) => `nats://${CLUSTER}-${i}-0.${CLUSTER}-headless.${namespace}.svc:4222`);

const authObject = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: AUTH, kind, metadata: { name, namespace }, spec }) as KubeObject;
const readSecret = (name: string) => env.kube.get<Secret>({ apiVersion: "v1", kind: "Secret", namespace, name });
const credsOf = async (name: string) =>
  Buffer.from((await readSecret(name))?.data?.["user.creds"] ?? "", "base64").toString("utf8");
const readAccount = () => env.kube.get<Account>({ apiVersion: AUTH, kind: "NatsAccount", namespace, name: "team" });
const distributed = (a: Account | undefined) => a?.status?.conditions?.find((c) => c.type === "Distributed");
const asUser = async (creds: string) =>
  connect({ servers: servers(), authenticator: credsAuthenticator(new TextEncoder().encode(creds)), timeout: 5_000 });

/** Raw answers to a request within `ms`: each server answers a ping or a claims lookup. */
/** Every server's answer to one request (three servers). */
const fromEveryServer = (subject: string, body = "") => replies(admin as NatsConnection, subject, { want: 3, body });

const serverIds = async (nc: NatsConnection) =>
  (await replies(nc, "$SYS.REQ.SERVER.PING.STATSZ", { want: 3 }))
    .map((a) => (JSON.parse(a) as { server: { id: string } }).server.id)
    .sort();

const dumpLog = (error: unknown) => {
  process.stdout.write(operator.log.slice(-60).join(""));
  throw error;
};

/** Waits for the account's Distributed condition to read True for the JWT status holds now. */
const waitDistributed = (what: string, accept: (a: Account) => boolean = () => true) =>
  waitFor(
    what,
    async () => {
      const account = await readAccount();
      return account && distributed(account)?.status === "True" && accept(account) ? account : undefined;
    },
    { timeoutMs: 120_000 },
  ).catch(dumpLog);

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("distrib");
  // Read by sign-account on each delivery, as the local runner passes the environment through.
  process.env[SYSTEM_CONNECTION_ENV] = `${namespace}/system`;
  operator = await startOperator(env.transport, {
    extraFunctions: [signAccount, syncStream],
    extraKinds: [
      "NatsOperator",
      "NatsSystemAccount",
      "NatsAccount",
      "NatsUser",
      "NatsAccountTrust",
      "Secret",
      "NatsConnection",
      "NatsStream",
    ],
  });
  await env.kube.create(authObject("NatsOperator", "main", { systemAccountRef: { name: "sys" } }));
  await env.kube.create(authObject("NatsSystemAccount", "sys", { operatorRef: { name: "main" } }));
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsOperatorTrust",
    metadata: { name: "main", namespace },
    spec: { operatorRef: { name: "main" } },
  } as KubeObject);
  const systemUser = (name: string, preset?: string) =>
    env.kube.create(
      authObject("NatsUser", name, {
        accountRef: { kind: "NatsSystemAccount", name: "sys" },
        ...(preset ? { preset } : {}),
      }),
    );
  await systemUser("controller", "cluster-controller");
  await systemUser("pusher", "auth-controller");
  await systemUser("admin");
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name: "system", namespace },
    spec: { servers: servers(), credentials: { secretKeyRef: { name: "pusher-creds" } } },
  } as KubeObject);
  await waitFor("the controller's creds", async () => (await credsOf("controller-creds")).includes("NATS USER JWT"), {
    timeoutMs: 60_000,
  }).catch(dumpLog);
  const manifest = quickstart(namespace, CLUSTER);
  manifest.spec["auth"] = {
    trustRef: { name: "main" },
    systemCredentials: { secretKeyRef: { name: "controller-creds" } },
  };
  await env.kube.create(manifest);
  const cluster = await waitAtRest(env.kube, namespace, 300_000, CLUSTER).catch(dumpLog);
  expect(condition(cluster, "Ready")?.status).toBe("True");
  admin = await asUser(await credsOf("admin-creds"));
  // At rest means the meta group is current; the routes of a cluster that came to rest seconds
  // after its servers started may still be forming, and a push or a roster read before they have
  // reaches only the servers routed to the pusher's. Waited for: every server answers STATSZ and
  // names both others among its routes.
  await waitFor(
    "every server answering STATSZ, routed to both others",
    async () => {
      const answers = (await replies(admin as NatsConnection, "$SYS.REQ.SERVER.PING.STATSZ", { want: 3 })).map(
        (a) => JSON.parse(a) as { server: { name: string }; statsz?: { routes?: { name?: string }[] } },
      );
      const meshed = answers.filter((a) => new Set((a.statsz?.routes ?? []).map((r) => r.name)).size === 2);
      return answers.length === 3 && meshed.length === 3 ? true : undefined;
    },
    { timeoutMs: 60_000 },
  );
}, 600_000);

afterAll(async () => {
  await admin?.close();
  await operator?.stop();
  await env?.stop();
  if (previousEnv === undefined) Reflect.deleteProperty(process.env, SYSTEM_CONNECTION_ENV);
  else process.env[SYSTEM_CONNECTION_ENV] = previousEnv;
}, 120_000);

describe("account JWTs pushed over $SYS to a 3-server operator-mode cluster", () => {
  it("a NatsAccount with JetStream limits reaches all 3 servers: Distributed True, every counted server holds this JWT", async () => {
    await env.kube.create(
      authObject("NatsAccount", "team", {
        operatorRef: { name: "main" },
        limits: { connections: 5, jetstream: { memoryStorage: "64Mi", diskStorage: "256Mi", streams: 10 } },
      }),
    );
    await env.kube.create(authObject("NatsUser", "app", { accountRef: { kind: "NatsAccount", name: "team" } }));
    const account = await waitDistributed("team distributed");
    // The roster is the servers that answered STATSZ within the wait; on a loaded machine one of
    // three may answer late and the first count reads 2 of 2. Every server holds the JWT either way
    // (the claims update is a broadcast), which the lookup below asserts server by server.
    const counted = account.status?.distribution?.servers ?? 0;
    expect(counted).toBeGreaterThanOrEqual(2);
    expect(distributed(account)).toMatchObject({
      reason: "AllServersCurrent",
      message: `${counted} of ${counted} servers hold this JWT`,
    });
    expect(account.status?.distribution?.current).toBe(counted);
    // lastPushTime is not asserted here: the delivery that pushed may lose its status write to a
    // concurrent one, and the next finds every server current with nothing to push, so it may be unset (a gap left for a next session).
    expect(account.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      reason: "Distributed",
    });
    // Each server answers a claims lookup with the very JWT in status; a server that was not
    // counted takes it from the next push or from its peers' resolver sync.
    const jwt = account.status?.jwt;
    let held: string[] = [];
    await waitFor(
      "every server holding this JWT",
      async () => {
        held = (await fromEveryServer(`$SYS.REQ.ACCOUNT.${account.status?.publicKey}.CLAIMS.LOOKUP`)).map((j) =>
          j.trim(),
        );
        return held.length === 3 && held.every((j) => j === jwt) ? true : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(() => expect(held).toEqual([jwt, jwt, jwt]));
  }, 180_000);

  it("a NatsStream on a NatsConnection with the user's creds Secret is made in the account; the user reads its info", async () => {
    await waitFor("app's creds", async () => (await credsOf("app-creds")).includes("NATS USER JWT"), {
      timeoutMs: 60_000,
    });
    await env.kube.create(
      resource(CORE, "NatsConnection", namespace, "demo-orders", {
        servers: servers(),
        credentials: { secretKeyRef: { name: "app-creds" } },
      }),
    );
    await env.kube.create(
      resource(JS, "NatsStream", namespace, "orders", {
        connectionRef: { name: "demo-orders" },
        name: "ORDERS",
        subjects: ["orders.>"],
        replicas: 3,
      }),
    );
    const key = { apiVersion: JS, kind: "NatsStream", namespace, name: "orders" };
    await waitForCondition(env.kube, key, "Ready", "True", "Synced", 120_000);
    const nc = await asUser(await credsOf("app-creds"));
    try {
      // A server enables JetStream for an account shortly after it stores the JWT, and the
      // connection may sit on a server that has not yet: wait for JetStream, as an app would.
      const jsm = await waitFor("JetStream enabled for team on the user's server", () => jetstreamManager(nc), {
        timeoutMs: 30_000,
      });
      await nc.request("orders.1", "one", { timeout: 5_000 }).catch(() => undefined);
      const info = await jsm.streams.info("ORDERS");
      expect(info.config.name).toBe("ORDERS");
      expect(info.cluster?.replicas?.length).toBe(2);
    } finally {
      await nc.close();
    }
  }, 120_000);

  it("raising limits.connections re-signs the account and reaches all 3 servers with no server restart", async () => {
    const before = await readAccount();
    const idsBefore = await serverIds(admin as NatsConnection);
    expect(idsBefore).toHaveLength(3);
    const limits = { ...(before?.spec["limits"] as Record<string, unknown>), connections: 50 };
    await env.kube.patch(
      { apiVersion: AUTH, kind: "NatsAccount", namespace, name: "team" },
      { spec: { limits } },
      "merge",
    );
    const after = await waitDistributed(
      "team re-signed and distributed",
      (a) => a.status?.jwtHash !== before?.status?.jwtHash && a.status?.distribution?.current === 3,
    );
    expect(distributed(after)?.message).toBe("3 of 3 servers hold this JWT");
    const held = await fromEveryServer(`$SYS.REQ.ACCOUNT.${after.status?.publicKey}.CLAIMS.LOOKUP`);
    expect(held.map((j) => j.trim())).toEqual([after.status?.jwt, after.status?.jwt, after.status?.jwt]);
    const claims = JSON.parse(Buffer.from((after.status?.jwt ?? "").split(".")[1] ?? "", "base64url").toString()) as {
      nats?: { limits?: { conn?: number } };
    };
    expect(claims.nats?.limits?.conn).toBe(50);
    // A restarted server comes back under a new server ID.
    expect(await serverIds(admin as NatsConnection)).toEqual(idsBefore);
  }, 180_000);

  it("a reference-form NatsAccountTrust mirrors the account's public key and the JWT every server holds", async () => {
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsAccountTrust",
      metadata: { name: "team", namespace },
      spec: { accountRef: { name: "team" } },
    } as KubeObject);
    type Trust = KubeObject & { status?: Account["status"] };
    const trust = await waitFor(
      "the trust mirrors team",
      async () => {
        const t = await env.kube.get<Trust>({
          apiVersion: "nats-operator.io/v1beta1",
          kind: "NatsAccountTrust",
          namespace,
          name: "team",
        });
        return t?.status?.jwt ? t : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const account = await readAccount();
    expect(trust.status?.publicKey).toBe(account?.status?.publicKey);
    expect(trust.status?.jwt).toBe(account?.status?.jwt);
    expect(trust.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      reason: "Mirrored",
    });
    const held = await fromEveryServer(`$SYS.REQ.ACCOUNT.${trust.status?.publicKey}.CLAIMS.LOOKUP`);
    expect(held.map((j) => j.trim())).toEqual([trust.status?.jwt, trust.status?.jwt, trust.status?.jwt]);
  }, 120_000);
});

describe("the servers trust the operator's signing key (A10)", () => {
  it("the NatsOperator reads SigningKeyUntrusted=False, SignerTrusted, from every server's VARZ", async () => {
    type Operator = KubeObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } };
    const trust = await waitFor(
      "main's SigningKeyUntrusted condition",
      async () => {
        const o = await env.kube.get<Operator>({ apiVersion: AUTH, kind: "NatsOperator", namespace, name: "main" });
        const c = o?.status?.conditions?.find((x) => x.type === "SigningKeyUntrusted");
        return c?.status === "False" ? c : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    expect(trust).toMatchObject({ status: "False", reason: "SignerTrusted" });
  }, 90_000);
});

describe("a user's Ready means its creds work (A20)", () => {
  type User = KubeObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } };
  const readUser = () => env.kube.get<User>({ apiVersion: AUTH, kind: "NatsUser", namespace, name: "late-app" });
  const conditionOf = (u: User | undefined, type: string) => u?.status?.conditions?.find((c) => c.type === type);

  it("a user created right after its account reads Ready only once each server accepts its creds", async () => {
    await env.kube.create(authObject("NatsAccount", "late", { operatorRef: { name: "main" } }));
    await env.kube.create(authObject("NatsUser", "late-app", { accountRef: { kind: "NatsAccount", name: "late" } }));
    const user = await waitFor(
      "late-app Ready",
      async () => {
        const u = await readUser();
        return conditionOf(u, "Ready")?.status === "True" ? u : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    ).catch(dumpLog);
    // Right as Ready turns True: each server on its own accepts a client with the user's creds.
    // A connect that times out (a loaded machine) is no verdict and is tried again; a refusal is one.
    const creds = new TextEncoder().encode(await credsOf("late-app-creds"));
    const verdictOf = async (url: string): Promise<string> => {
      for (let attempt = 1; ; attempt++) {
        const outcome = await connect({
          servers: [url],
          authenticator: credsAuthenticator(creds),
          timeout: 5_000,
          reconnect: false,
        }).then(
          async (nc) => {
            await nc.close();
            return "accepted";
          },
          (error: unknown) => `${url}: ${error instanceof Error ? error.message : String(error)}`,
        );
        if (!outcome.endsWith(": timeout") || attempt === 6) return outcome;
      }
    };
    const outcomes = await Promise.all(servers().map(verdictOf));
    expect(outcomes).toEqual(["accepted", "accepted", "accepted"]);
    expect(conditionOf(user, "Distributed")).toMatchObject({ status: "True", reason: "AllServersCurrent" });
  }, 180_000);
});

describe("users revoked in the account JWT", () => {
  type User = KubeObject & {
    status?: { publicKey?: string; replacedKeys?: { publicKey: string; at: string }[] };
  };
  const readUser = (name: string) => env.kube.get<User>({ apiVersion: AUTH, kind: "NatsUser", namespace, name });
  const revocationsOf = (a: Account | undefined) =>
    (
      JSON.parse(Buffer.from((a?.status?.jwt ?? "").split(".")[1] ?? "", "base64url").toString()) as {
        nats?: { revocations?: Record<string, number> };
      }
    ).nats?.revocations ?? {};
  /** The account distributed with a JWT that revokes `key`. */
  const waitRevoked = (key: string) =>
    waitDistributed(`team revokes ${key} on every server`, (a) => {
      const listed = (a.status as { revocations?: { publicKey: string }[] } | undefined)?.revocations ?? [];
      return (
        revocationsOf(a)[key] !== undefined &&
        listed.some((r) => r.publicKey === key) &&
        a.status?.distribution?.current === 3
      );
    });
  const refused = async (creds: string) => {
    const attempt = await asUser(creds).then(
      async (nc) => {
        await nc.close();
        return "connected";
      },
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    return attempt;
  };

  it("deleting a NatsUser closes its live connection within seconds, and its creds are refused on reconnect", async () => {
    await env.kube.create(authObject("NatsUser", "leaver", { accountRef: { kind: "NatsAccount", name: "team" } }));
    const creds = await waitFor(
      "leaver's creds",
      async () => ((await credsOf("leaver-creds")).includes("NATS USER JWT") ? credsOf("leaver-creds") : undefined),
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const user = await waitFor(
      "leaver carries the revoke finalizer",
      async () => {
        const u = await readUser("leaver");
        return u?.metadata.finalizers?.includes("auth.nats-operator.io/revoke") && u.status?.publicKey ? u : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const key = user.status?.publicKey ?? "";
    // A live connection that does not reconnect, so its end is seen as it happens.
    const nc = await connect({
      servers: servers(),
      authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
      timeout: 5_000,
      reconnect: false,
    });
    await nc.flush();
    let closedAt = 0;
    const closed = nc.closed().then(() => void (closedAt = Date.now()));
    const deletedAt = Date.now();
    await env.kube.delete({ apiVersion: AUTH, kind: "NatsUser", namespace, name: "leaver" });
    await waitFor("leaver's connection closed", async () => closedAt > 0, { timeoutMs: 30_000, intervalMs: 200 }).catch(
      dumpLog,
    );
    await closed;
    expect(closedAt - deletedAt).toBeLessThan(15_000);
    await waitFor("leaver gone", async () => (await readUser("leaver")) === undefined, { timeoutMs: 60_000 }).catch(
      dumpLog,
    );
    // The creds Secret the user owned goes with it (garbage collection).
    await waitFor("leaver's creds Secret gone", async () => (await readSecret("leaver-creds")) === undefined, {
      timeoutMs: 60_000,
    });
    const account = await waitRevoked(key);
    expect(distributed(account)?.message).toBe("3 of 3 servers hold this JWT");
    // Every server holds the revoking JWT: whichever one the client reaches refuses the creds.
    expect(await refused(creds)).toMatch(/authorization|revoked/i);
  }, 180_000);

  it("the system connection finds a live connection of a user with CONNZ filtered by account and key, and KICK closes it", async () => {
    await env.kube.create(authObject("NatsUser", "kicked", { accountRef: { kind: "NatsAccount", name: "team" } }));
    const creds = await waitFor(
      "kicked's creds",
      async () => ((await credsOf("kicked-creds")).includes("NATS USER JWT") ? credsOf("kicked-creds") : undefined),
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const key = (await readUser("kicked"))?.status?.publicKey ?? "";
    const accountKey = (await readAccount())?.status?.publicKey ?? "";
    const nc = await connect({
      servers: servers(),
      authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
      timeout: 5_000,
      reconnect: false,
    });
    await nc.flush();
    let closed = false;
    void nc.closed().then(() => void (closed = true));
    // What a deleted user's drain reads and sends, through sign-account's own system connection.
    const link = await openSystemConnection(env.kube);
    const found = await readConnections(link, accountKey, key, undefined);
    expect(found).toMatchObject({
      kind: "read",
      connections: [{ server: expect.any(String), cid: expect.any(Number) }],
    });
    if (found.kind !== "read" || link.kind !== "up") throw new Error("no reading");
    expect(found.answered).toEqual(found.roster);
    expect(found.roster).toHaveLength(3);
    expect(await kickConnections(link.nc, found.connections)).toEqual({ kicked: 1, failed: [] });
    await waitFor("kicked's connection closed", async () => closed, { timeoutMs: 10_000, intervalMs: 100 });
    const after = await readConnections(link, accountKey, key, undefined);
    expect(after).toMatchObject({ kind: "read", connections: [] });
    // A connection already gone is not a failure.
    expect(await kickConnections(link.nc, found.connections)).toEqual({ kicked: 0, failed: [] });
  }, 120_000);

  it("a user whose creds Secret is lost gets a new key; the old one is revoked and listed in replacedKeys until the account JWT carries it", async () => {
    const before = await readUser("app");
    const oldKey = before?.status?.publicKey ?? "";
    const oldCreds = await credsOf("app-creds");
    expect(oldKey).toMatch(/^U/);
    await env.kube.delete({ apiVersion: "v1", kind: "Secret", namespace, name: "app-creds" });
    const after = await waitFor(
      "app re-keyed, its replaced key carried by the account",
      async () => {
        const u = await readUser("app");
        const key = u?.status?.publicKey;
        return key && key !== oldKey && (u.status?.replacedKeys ?? []).length === 0 ? u : undefined;
      },
      { timeoutMs: 120_000 },
    ).catch(dumpLog);
    await waitRevoked(oldKey);
    expect(after.status?.publicKey).not.toBe(oldKey);
    expect(await refused(oldCreds)).toMatch(/authorization|revoked/i);
    expect(await refused(await credsOf("app-creds"))).toBe("connected");
  }, 180_000);
});

describe("revocations recovered from the servers", () => {
  type Vault = Account & {
    status?: Account["status"] & {
      revocations?: { publicKey: string }[];
      distribution?: { roster?: { id: string; missedPolls?: number }[] };
    };
  };
  const readVault = () => env.kube.get<Vault>({ apiVersion: AUTH, kind: "NatsAccount", namespace, name: "vault" });
  const conditionOf = (a: Account | undefined, type: string) => a?.status?.conditions?.find((c) => c.type === type);
  const jwtRevokes = (a: Account | undefined, key: string) =>
    (
      JSON.parse(Buffer.from((a?.status?.jwt ?? "").split(".")[1] ?? "", "base64url").toString()) as {
        nats?: { revocations?: Record<string, number> };
      }
    ).nats?.revocations?.[key] !== undefined;

  it("an account whose status lost its JWT and revocations is not signed while a roster server is silent, then recovers them from every server", async () => {
    await env.kube.create(authObject("NatsAccount", "vault", { operatorRef: { name: "main" } }));
    await env.kube.create(authObject("NatsUser", "ex", { accountRef: { kind: "NatsAccount", name: "vault" } }));
    const ex = await waitFor(
      "ex signed with its finalizer",
      async () => {
        const u = await env.kube.get<KubeObject & { status?: { publicKey?: string } }>({
          apiVersion: AUTH,
          kind: "NatsUser",
          namespace,
          name: "ex",
        });
        return u?.metadata.finalizers?.includes("auth.nats-operator.io/revoke") && u.status?.publicKey ? u : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const key = ex.status?.publicKey ?? "";
    await env.kube.delete({ apiVersion: AUTH, kind: "NatsUser", namespace, name: "ex" });
    const revoked = await waitFor(
      "vault revokes ex on every server",
      async () => {
        const a = await readVault();
        return a && jwtRevokes(a, key) && distributed(a)?.status === "True" ? a : undefined;
      },
      { timeoutMs: 120_000 },
    ).catch(dumpLog);
    const live = (revoked.status?.distribution?.roster ?? []).map((r) => r.id);
    expect(live).toHaveLength(3);

    // The status comes back without its JWT and revocations (a restore that kept only the
    // distribution), and its roster names a fourth server that no longer answers.
    const silent = "NSILENTSERVER";
    await waitFor(
      "vault's status replaced",
      async () => {
        const a = await readVault();
        if (!a) return undefined;
        const status = {
          distribution: { ...a.status?.distribution, roster: [...live.map((id) => ({ id })), { id: silent }] },
        };
        // Guarded by the resourceVersion read: a write by sign-account meanwhile means read again.
        return env.kube.replaceStatus({ ...a, status }).then(
          () => true,
          () => undefined,
        );
      },
      { timeoutMs: 30_000 },
    );
    const held = await waitFor(
      "vault held: RecoveringRevocations",
      async () => {
        const a = await readVault();
        return conditionOf(a, "Ready")?.reason === "RecoveringRevocations" ? a : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch(dumpLog);
    expect(held.status?.jwt).toBeUndefined();
    expect(conditionOf(held, "Ready")?.message).toContain("1 of 4 servers did not answer the claims lookup");
    expect(conditionOf(held, "RevocationsUnrecovered")).toMatchObject({ status: "True" });

    // Two missed polls in a row: the silent server is still counted, and the account still held.
    const twice = await waitFor(
      "the silent server missed two polls",
      async () => {
        const a = await readVault();
        const entry = a?.status?.distribution?.roster?.find((r) => r.id === silent);
        return entry?.missedPolls === 2 ? a : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch(dumpLog);
    expect(conditionOf(twice, "Ready")?.reason).toBe("RecoveringRevocations");
    expect(twice.status?.jwt).toBeUndefined();

    // The silent server leaves the roster after its third missed poll; then every server answers,
    // and the JWT is signed again with the revocation the servers' JWT carries.
    const recovered = await waitFor(
      "vault recovered and distributed",
      async () => {
        const a = await readVault();
        return a && distributed(a)?.status === "True" && a.status?.jwt ? a : undefined;
      },
      { timeoutMs: 120_000 },
    ).catch(dumpLog);
    expect(jwtRevokes(recovered, key)).toBe(true);
    expect(recovered.status?.revocations?.map((r) => r.publicKey)).toContain(key);
    expect(conditionOf(recovered, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
    expect(recovered.status?.distribution?.roster?.map((r) => r.id).sort()).toEqual([...live].sort());
    expect(distributed(recovered)?.message).toBe("3 of 3 servers hold this JWT");
    const events = await env.kube.list<KubeObject & { reason?: string; regarding?: { name?: string } }>({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      namespace,
    });
    expect(events.some((e) => e.reason === "JWTHeld" && e.regarding?.name === "vault")).toBe(true);
  }, 240_000);
});

describe("deleting an account", () => {
  it("deleting the NatsAccount deletes its JWT from every server's resolver, then the object goes", async () => {
    const account = await readAccount();
    const key = account?.status?.publicKey ?? "";
    deleted = { key, jwt: account?.status?.jwt ?? "" };
    expect(account?.metadata.finalizers).toContain("auth.nats-operator.io/delete");
    await env.kube.delete({ apiVersion: AUTH, kind: "NatsAccount", namespace, name: "team" });
    await waitFor("team gone", async () => (await readAccount()) === undefined, { timeoutMs: 120_000 }).catch(dumpLog);
    // Each of the 3 servers answers the claims lookup, and none with a JWT.
    const held = await fromEveryServer(`$SYS.REQ.ACCOUNT.${key}.CLAIMS.LOOKUP`);
    expect(held.map((j) => j.trim())).toEqual(["", "", ""]);
    const main = await env.kube.get<KubeObject & { status?: { deletedAccounts?: { publicKey: string }[] } }>({
      apiVersion: AUTH,
      kind: "NatsOperator",
      namespace,
      name: "main",
    });
    expect(main?.status?.deletedAccounts?.map((d) => d.publicKey)).toContain(key);
    const events = await env.kube.list<KubeObject & { reason?: string; note?: string }>({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      namespace,
    });
    expect(events.find((e) => e.reason === "JWTDeleted")?.note).toContain(`deleted account ${key} from the resolvers`);
  }, 180_000);

  it("a server that comes back holding the deleted account's JWT is sent the delete again by the operator", async () => {
    // Stands in for servers that were away during the delete: each takes the old JWT again.
    const lookup = () => fromEveryServer(`$SYS.REQ.ACCOUNT.${deleted.key}.CLAIMS.LOOKUP`);
    const taken = await fromEveryServer("$SYS.REQ.CLAIMS.UPDATE", deleted.jwt);
    // Each server stored it (its answer says so). A lookup here could race the operator's watch,
    // which may already have deleted it again: only the operator deletes it from here on.
    expect(taken.map((a) => (JSON.parse(a) as { data?: { code?: number } }).data?.code)).toEqual([200, 200, 200]);
    // The operator's watch (a PingSource every minute while it lists deleted accounts) deletes it again.
    const since = Date.now();
    let answers: string[] = [];
    await waitFor(
      "the deleted account gone from every server again",
      async () => {
        answers = (await lookup()).map((j) => (j.trim() === "" ? "none" : "JWT"));
        return answers.join(",") === "none,none,none";
      },
      { timeoutMs: 150_000, intervalMs: 5_000 },
    ).catch(async (error: unknown) => {
      // Which of the watch's links broke shows in the failure itself: the PingSource, its
      // deliveries, or the delete they sent.
      const poll = await env.kube.get({
        apiVersion: "sources.knative.dev/v1",
        kind: "PingSource",
        namespace,
        name: "main-operator-deletions",
      });
      const ticks = operator.deliveries
        .filter((d) => d.fn === "sign-account" && d.type === "dev.knative.sources.ping" && d.at >= since)
        .map((d) => `${new Date(d.at).toISOString()} ${JSON.stringify(d.outcome).slice(0, 300)}`);
      const detail = `PingSource ${poll ? "present" : "absent"}; servers answered ${answers.join(",")}; ping deliveries to sign-account since the push: ${ticks.join(" | ") || "none"}`;
      return dumpLog(new Error(`${error instanceof Error ? error.message : String(error)} (${detail})`));
    });
  }, 180_000);
});
