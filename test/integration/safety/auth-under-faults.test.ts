// harness: real node
// The auth plane under the event faults of Knative: sign-account signs and pushes accounts and
// users to a 3-server operator-mode cluster while a fifth of the account, user and Secret events
// are lost, every one is delivered twice at once, and each copy is held back up to half a second
// so later events overtake it; the resync (every 10 s here) recovers what was lost. Accounts and
// users are made, changed and deleted at once. The end must be what a clean run ends in, read
// from the servers: one key per user and its creds accepted by every server, every deleted
// user's key revoked in its account's JWT on every server and its creds refused, no live user's
// key revoked, and every server holding exactly the JWT each account's status names.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect, createInbox, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { signAccount } from "../../../functions/sign-account/index.ts";
import { SYSTEM_CONNECTION_ENV } from "../../../functions/sign-account/servers/system-connection.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { quickstart, waitAtRest } from "../cluster/support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { faults, resyncPingSources } from "../support/resync.ts";
import { waitFor } from "../../harness/wait.ts";

const AUTH = "auth.nats-operator.io/v1beta1";
const CLUSTER = "af";
const ACCOUNTS = ["red", "green", "blue"];
const FAULTS = "drop=0.2,duplicate=1,reorder=500ms,kinds=NatsAccount+NatsUser+Secret";

type Condition = { type: string; status: string; reason: string };
type AuthObject = KubeObject & {
  status?: { publicKey?: string; jwt?: string; conditions?: Condition[] };
};
type Secret = KubeObject & { data?: Record<string, string> };

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let admin: NatsConnection | undefined;
const previousEnv = process.env[SYSTEM_CONNECTION_ENV];

const urls = () => [0, 1, 2].map((i) => `nats://${CLUSTER}-${i}-0.${CLUSTER}-headless.${namespace}.svc:4222`);
const authObject = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: AUTH, kind, metadata: { name, namespace }, spec }) as KubeObject;
const read = (kind: string, name: string) => env.kube.get<AuthObject>({ apiVersion: AUTH, kind, namespace, name });
const credsOf = async (secret: string) =>
  Buffer.from(
    (await env.kube.get<Secret>({ apiVersion: "v1", kind: "Secret", namespace, name: secret }))?.data?.["user.creds"] ??
      "",
    "base64",
  ).toString("utf8");
const conditionOf = (o: AuthObject | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString()) as {
    sub: string;
    nats?: { revocations?: Record<string, number> };
  };

/** Connects with `creds` to one server only; answers "connected" or the refusal. */
const attemptOn = (creds: string, url: string) =>
  connect({ servers: [url], authenticator: credsAuthenticator(new TextEncoder().encode(creds)), timeout: 5_000 }).then(
    async (nc) => {
      await nc.close();
      return "connected";
    },
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );

/** The server's verdict on `creds`: asked again while a busy server times the attempt out undecided. */
const tryOn = (creds: string, url: string) =>
  waitFor(
    `a verdict on creds from ${url}`,
    async () => {
      const answer = await attemptOn(creds, url);
      return /timeout/i.test(answer) ? undefined : answer;
    },
    { timeoutMs: 60_000 },
  );

/** Each server's answer to a claims lookup of `account` (a JWT, or an error text). */
async function heldBy(account: string): Promise<string[]> {
  const nc = admin;
  if (nc === undefined) throw new Error("no admin connection");
  const inbox = createInbox();
  const answers: string[] = [];
  const sub = nc.subscribe(inbox);
  const timer = setTimeout(() => sub.unsubscribe(), 3_000);
  const done = (async () => {
    for await (const m of sub) {
      answers.push(m.string().trim());
      if (answers.length === 3) sub.unsubscribe();
    }
  })();
  nc.publish(`$SYS.REQ.ACCOUNT.${account}.CLAIMS.LOOKUP`, "", { reply: inbox });
  await done;
  clearTimeout(timer);
  return answers;
}

const showLog = (error: unknown) => {
  process.stdout.write(operator.log.slice(-80).join(""));
  throw error;
};

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("auth-faults");
  process.env[SYSTEM_CONNECTION_ENV] = `${namespace}/system`;
  operator = await startOperator(env.transport, {
    extraFunctions: [signAccount],
    extraKinds: ["NatsOperator", "NatsSystemAccount", "NatsAccount", "NatsUser", "Secret", "NatsConnection"],
    faults: faults(FAULTS),
  });
  for (const source of await resyncPingSources(namespace, "*/10 * * * * *")) await env.kube.create(source);
  await env.kube.create(authObject("NatsOperator", "main", { systemAccountRef: { name: "sys" } }));
  await env.kube.create(authObject("NatsSystemAccount", "sys", { operatorRef: { name: "main" } }));
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsOperatorTrust",
    metadata: { name: "main", namespace },
    spec: { operatorRef: { name: "main" } },
  } as KubeObject);
  for (const [name, preset] of [
    ["controller", "cluster-controller"],
    ["pusher", "auth-controller"],
    ["admin", undefined],
  ] as const)
    await env.kube.create(
      authObject("NatsUser", name, {
        accountRef: { kind: "NatsSystemAccount", name: "sys" },
        ...(preset ? { preset } : {}),
      }),
    );
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name: "system", namespace },
    spec: { servers: urls(), credentials: { secretKeyRef: { name: "pusher-creds" } } },
  } as KubeObject);
  await waitFor("the controller's creds", async () => (await credsOf("controller-creds")).includes("NATS USER JWT"), {
    timeoutMs: 120_000,
  }).catch(showLog);
  const manifest = quickstart(namespace, CLUSTER);
  manifest.spec["auth"] = {
    trustRef: { name: "main" },
    systemCredentials: { secretKeyRef: { name: "controller-creds" } },
  };
  await env.kube.create(manifest);
  await waitAtRest(env.kube, namespace, 300_000, CLUSTER).catch(showLog);
  const adminCreds = await credsOf("admin-creds");
  admin = await waitFor(
    "the admin user connected",
    () => connect({ servers: urls(), authenticator: credsAuthenticator(new TextEncoder().encode(adminCreds)) }),
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

/** Every user Ready with a key, every account Distributed on 3 servers with its JWT naming `revoked`. */
const settled = (users: string[], revoked: Map<string, string[]>) =>
  waitFor(
    "every account distributed and every user ready",
    async () => {
      for (const name of users)
        if (conditionOf(await read("NatsUser", name), "Ready")?.status !== "True") return undefined;
      for (const name of ACCOUNTS) {
        const account = await read("NatsAccount", name);
        if (conditionOf(account, "Distributed")?.reason !== "AllServersCurrent") return undefined;
        const revocations = claimsOf(account?.status?.jwt ?? "..").nats?.revocations ?? {};
        if ((revoked.get(name) ?? []).some((key) => revocations[key] === undefined)) return undefined;
      }
      return true;
    },
    { timeoutMs: 300_000, intervalMs: 1_000 },
  ).catch(showLog);

describe("the auth plane under lost, duplicated and reordered events", () => {
  it("ends as a clean run would: one key per user accepted everywhere, deleted users revoked everywhere, every server holding each account's JWT", async () => {
    const usersOf = (account: string) => [`${account}-a`, `${account}-b`, `${account}-c`];
    await Promise.all(
      ACCOUNTS.flatMap((account) => [
        env.kube.create(authObject("NatsAccount", account, { operatorRef: { name: "main" } })),
        ...usersOf(account).map((user) =>
          env.kube.create(authObject("NatsUser", user, { accountRef: { kind: "NatsAccount", name: account } })),
        ),
      ]),
    );
    await settled(ACCOUNTS.flatMap(usersOf), new Map());

    // At once: each account loses a user, red gains one, blue's limits change.
    const leavers = ACCOUNTS.map((account) => `${account}-a`);
    const leaverKeys = new Map(
      await Promise.all(
        leavers.map(async (user) => [user, (await read("NatsUser", user))?.status?.publicKey ?? ""] as const),
      ),
    );
    const leaverCreds = new Map(
      await Promise.all(leavers.map(async (user) => [user, await credsOf(`${user}-creds`)] as const)),
    );
    await Promise.all([
      ...leavers.map((user) => env.kube.delete({ apiVersion: AUTH, kind: "NatsUser", namespace, name: user })),
      env.kube.create(authObject("NatsUser", "red-d", { accountRef: { kind: "NatsAccount", name: "red" } })),
      env.kube.patch(
        { apiVersion: AUTH, kind: "NatsAccount", namespace, name: "blue" },
        { spec: { limits: { connections: 50 } } },
        "merge",
      ),
    ]);
    const live = [...ACCOUNTS.flatMap(usersOf).filter((u) => !leavers.includes(u)), "red-d"];
    await settled(live, new Map(ACCOUNTS.map((account) => [account, [leaverKeys.get(`${account}-a`) ?? ""]])));
    await waitFor(
      "the deleted users gone",
      async () => (await Promise.all(leavers.map((u) => read("NatsUser", u)))).every((u) => u === undefined),
      { timeoutMs: 120_000 },
    );

    // Every server holds exactly the JWT each account's status names.
    for (const name of ACCOUNTS) {
      const account = await read("NatsAccount", name);
      const jwt = account?.status?.jwt ?? "";
      expect([name, await heldBy(account?.status?.publicKey ?? "")]).toEqual([name, [jwt, jwt, jwt]]);
      // No live user of the account is revoked; the one deleted is.
      const revocations = Object.keys(claimsOf(jwt).nats?.revocations ?? {});
      expect(revocations).toContain(leaverKeys.get(`${name}-a`));
      for (const user of live.filter((u) => u.startsWith(`${name}-`)))
        expect([user, revocations]).toEqual([
          user,
          expect.not.arrayContaining([(await read("NatsUser", user))?.status?.publicKey]),
        ]);
    }
    // One key per live user: its creds carry the key in its status, and every server accepts them.
    for (const user of live) {
      const creds = await credsOf(`${user}-creds`);
      const jwt = /-----BEGIN NATS USER JWT-----\s+(\S+)/.exec(creds)?.[1] ?? "";
      expect([user, claimsOf(jwt).sub]).toEqual([user, (await read("NatsUser", user))?.status?.publicKey]);
      for (const url of urls()) expect([user, url, await tryOn(creds, url)]).toEqual([user, url, "connected"]);
    }
    // Every deleted user's creds are refused by every server.
    for (const [user, creds] of leaverCreds)
      for (const url of urls())
        expect([user, url, await tryOn(creds, url)]).toEqual([
          user,
          url,
          expect.stringMatching(/authorization|revoked/i),
        ]);
    process.stdout.write(
      `safety: auth plane under ${FAULTS}: ${operator.faults.dropped} deliveries dropped, ${operator.faults.extraCopies} extra copies of ${operator.faults.decided}; ${live.length} users live, ${leavers.length} deleted\n`,
    );
  }, 900_000);
});
