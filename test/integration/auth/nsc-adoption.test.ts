// Story 14: an operator, its system account and an account made with the real nsc CLI
// (test/infra/build-nsc.sh), running a 3-server operator-mode cluster the operator renders from a
// literal NatsOperatorTrust holding nsc's JWTs, are handed to sign-account from their seeds. The
// keys stay, so the creds nsc issued keep working, live and new, and the system user nsc revoked
// stays revoked (recovered from the servers); the account waits (AdoptionDropsClaims) while its
// first JWT would drop nsc's export; sign-account signs from then on: its system account and
// account JWTs reach every server over $SYS, a NatsUser it signs connects,
// a scoped key nsc made signs a NatsUser of its role, a limit change reaches all 3 servers, and a
// deleted user of the system account is revoked in the system account JWT and kicked.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { signAccount } from "../../../functions/sign-account/index.ts";
import { SYSTEM_CONNECTION_ENV } from "../../../functions/sign-account/servers/system-connection.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { ensureNsc } from "../../harness/binaries.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { condition, quickstart, waitAtRest } from "../cluster/support/natscluster.ts";
import { pluginShell } from "../support/kubectl-plugin.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { waitFor } from "../../harness/wait.ts";
import { replies } from "../support/replies.ts";

const run = promisify(execFile);

let env: Environment;
let operator: RunningOperator;
let namespace: string;
let admin: NatsConnection | undefined;
/** A connection of nsc's user `legacy`, open from before the adoption on. */
let legacyLive: NatsConnection | undefined;
const previousEnv = process.env[SYSTEM_CONNECTION_ENV];
const nscHome = mkdtempSync(join(tmpdir(), "nats-operator-nsc-"));

/** What nsc made: public keys, seeds, JWTs and creds. */
const made = {
  operator: { key: "", signing: "", jwt: "" },
  sys: { key: "", signing: "", jwt: "" },
  orders: { key: "", signing: "", dev: "", jwt: "" },
  creds: { sys: "", sysOld: "", legacy: "", legacySk: "", dev: "" },
  /** A system user nsc revoked before the servers started. */
  sysOld: "",
};

type Status = {
  publicKey?: string;
  jwt?: string;
  jwtHash?: string;
  distribution?: { servers?: number; current?: number };
  conditions?: { type: string; status: string; reason: string; message: string }[];
  systemAccount?: { publicKey?: string; jwt?: string; revocations?: { publicKey: string }[] };
  revocations?: { publicKey: string }[];
};
type AuthObject = KubeObject & { spec: Record<string, unknown>; status?: Status };

const AUTH = "auth.nats-operator.io/v1beta1";
const CLUSTER = "legacy";
const servers = () => [0, 1, 2].map((i) => `nats://${CLUSTER}-${i}-0.${CLUSTER}-headless.${namespace}.svc:4222`);

const nsc = async (...args: string[]): Promise<string> => {
  const binary = await nscBinary;
  const dirs = ["--config-dir", join(nscHome, "config"), "--data-dir", join(nscHome, "stores")];
  const { stdout } = await run(binary, [...args, ...dirs, "--keystore-dir", join(nscHome, "keys")], {
    env: { ...process.env, HOME: nscHome, NKEYS_PATH: join(nscHome, "keys") },
    timeout: 30_000,
  });
  return stdout;
};
let nscBinary: Promise<string>;

/** The seed nsc keeps for `publicKey` (its keystore files each hold one seed, named by the public key). */
function seedOf(publicKey: string): string {
  const dir = join(nscHome, "keys", "keys", publicKey.slice(0, 1), publicKey.slice(1, 3));
  const file = readdirSync(dir).find((f) => f === `${publicKey}.nk`);
  if (!file) throw new Error(`nsc keystore has no seed for ${publicKey}`);
  return readFileSync(join(dir, file), "utf8").trim();
}

/** The public key nsc reports in an "[ OK ] added signing key ..." line. */
const addedKey = (output: string): string => /signing key "?([A-Z0-9]{56})/.exec(output)?.[1] ?? "";

const claimsOf = (jwt: string | undefined) =>
  JSON.parse(Buffer.from((jwt ?? "").split(".")[1] ?? "", "base64url").toString()) as {
    iss: string;
    sub: string;
    nats?: { limits?: { conn?: number }; revocations?: Record<string, number> };
  };

const authObject = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: AUTH, kind, metadata: { name, namespace }, spec }) as KubeObject;
const secret = (name: string, data: Record<string, string>): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
  }) as KubeObject;
const read = (kind: string, name: string) => env.kube.get<AuthObject>({ apiVersion: AUTH, kind, namespace, name });
const conditionOf = (o: AuthObject | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);
const keyRef = (name: string, key: string) => ({ secretKeyRef: { name, key } });
const credsOf = async (name: string) => {
  const s = await env.kube.get<KubeObject & { data?: Record<string, string> }>({
    apiVersion: "v1",
    kind: "Secret",
    namespace,
    name,
  });
  return Buffer.from(s?.data?.["user.creds"] ?? "", "base64").toString("utf8");
};
const asUser = (creds: string, reconnect = true) =>
  connect({
    servers: servers(),
    authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
    timeout: 5_000,
    reconnect,
  });

/** How a new connection with `creds` ends: "connected", or the error it was refused with. */
const refusedCreds = (creds: string) =>
  asUser(creds, false).then(
    async (c) => {
      await c.close();
      return "connected";
    },
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );

const lookups = async (key: string) =>
  (await replies(admin as NatsConnection, `$SYS.REQ.ACCOUNT.${key}.CLAIMS.LOOKUP`, { want: 3 })).map((j) => j.trim());

/**
 * A message sent by one connection and received by another on `subject`. Sent again every 250 ms
 * until it arrives: the subscription's interest reaches the other servers of the cluster a moment
 * after the subscriber's own server has it.
 */
async function roundTrip(from: NatsConnection, to: NatsConnection, subject: string): Promise<string> {
  const sub = to.subscribe(subject, { max: 1 });
  await to.flush();
  const received = (async () => {
    for await (const m of sub) return m.string();
    return "";
  })();
  from.publish(subject, "hello");
  const again = setInterval(() => from.publish(subject, "hello"), 250);
  try {
    return await waitFor("the message", async () => Promise.race([received, pause(100)]), {
      timeoutMs: 20_000,
      intervalMs: 0,
    });
  } finally {
    clearInterval(again);
    sub.unsubscribe();
  }
}

const pause = (ms: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), ms));

const dumpLog = (error: unknown) => {
  process.stdout.write(operator.log.slice(-60).join(""));
  throw error;
};

/** Waits for an auth object whose Distributed condition reads True and `accept` holds. */
const waitDistributed = (kind: string, name: string, accept: (o: AuthObject) => boolean = () => true) =>
  waitFor(
    `${kind} ${name} distributed`,
    async () => {
      const o = await read(kind, name);
      return o && conditionOf(o, "Distributed")?.status === "True" && accept(o) ? o : undefined;
    },
    { timeoutMs: 120_000 },
  ).catch(dumpLog);

async function makeWithNsc(): Promise<void> {
  await nsc("add", "operator", "acme", "--sys", "--generate-signing-key");
  await nsc("add", "account", "orders");
  made.orders.signing = addedKey(await nsc("edit", "account", "orders", "--sk", "generate"));
  made.orders.dev = addedKey(await nsc("edit", "account", "orders", "--sk", "generate"));
  await nsc("edit", "signing-key", "--account", "orders", "--sk", made.orders.dev, "--role", "dev");
  // An export no NatsAccount here declares: the takeover must not drop it unnoticed (A46).
  await nsc("add", "export", "--account", "orders", "--subject", "orders.events.>", "--name", "orders-events");
  await nsc("add", "user", "sys-old", "-a", "SYS");
  made.creds.sysOld = await nsc("generate", "creds", "-a", "SYS", "-n", "sys-old");
  await nsc("revocations", "add-user", "-a", "SYS", "-n", "sys-old");
  await nsc("add", "user", "legacy", "-a", "orders");
  await nsc("add", "user", "legacy-sk", "-a", "orders", "-K", made.orders.signing);
  await nsc("add", "user", "dev-1", "-a", "orders", "-K", "dev");
  const describe = async (...args: string[]) => JSON.parse(await nsc("describe", ...args, "--json")) as AuthJson;
  type AuthJson = { sub: string; nats: { signing_keys?: (string | { key: string })[] } };
  const keyOf = (k: string | { key: string }) => (typeof k === "string" ? k : k.key);
  const operatorJson = await describe("operator");
  const sysJson = await describe("account", "SYS");
  made.operator = {
    key: operatorJson.sub,
    signing: keyOf(operatorJson.nats.signing_keys?.[0] ?? ""),
    jwt: (await nsc("describe", "operator", "--raw")).trim(),
  };
  made.sys = {
    key: sysJson.sub,
    signing: keyOf(sysJson.nats.signing_keys?.[0] ?? ""),
    jwt: (await nsc("describe", "account", "SYS", "--raw")).trim(),
  };
  made.orders.key = (await describe("account", "orders")).sub;
  made.orders.jwt = (await nsc("describe", "account", "orders", "--raw")).trim();
  made.sysOld = (JSON.parse(await nsc("describe", "user", "-a", "SYS", "-n", "sys-old", "--json")) as AuthJson).sub;
  made.creds = {
    ...made.creds,
    sys: await nsc("generate", "creds", "-a", "SYS", "-n", "sys"),
    legacy: await nsc("generate", "creds", "-a", "orders", "-n", "legacy"),
    legacySk: await nsc("generate", "creds", "-a", "orders", "-n", "legacy-sk"),
    dev: await nsc("generate", "creds", "-a", "orders", "-n", "dev-1"),
  };
}

beforeAll(async () => {
  nscBinary = ensureNsc();
  env = await startEnvironment();
  namespace = await env.namespace("nsc");
  process.env[SYSTEM_CONNECTION_ENV] = `${namespace}/system`;
  operator = await startOperator(env.transport, {
    extraFunctions: [signAccount],
    extraKinds: ["NatsOperator", "NatsSystemAccount", "NatsAccount", "NatsUser", "Secret"],
  });
  await makeWithNsc();
  // What a team that ran nsc has: the servers run nsc's operator JWT, and a system user's creds.
  await env.kube.create(secret("nsc-sys-creds", { "user.creds": made.creds.sys }));
  await env.kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsOperatorTrust",
    metadata: { name: "acme", namespace },
    spec: { operatorJWT: made.operator.jwt, systemAccountJWT: made.sys.jwt },
  } as KubeObject);
  const manifest = quickstart(namespace, CLUSTER);
  manifest.spec["auth"] = {
    trustRef: { name: "acme" },
    systemCredentials: { secretKeyRef: { name: "nsc-sys-creds" } },
  };
  await env.kube.create(manifest);
  const cluster = await waitAtRest(env.kube, namespace, 300_000, CLUSTER).catch(dumpLog);
  expect(condition(cluster, "Ready")?.status).toBe("True");
  admin = await asUser(made.creds.sys);
  // nsc's account pushed as `nsc push` does, and held by every server. A cluster just at rest may
  // not yet route the system account's requests to every server: pushed again, as a user re-runs
  // `nsc push`, until all three acknowledge.
  await waitFor(
    "nsc's push acknowledged by every server",
    async () =>
      (await replies(admin as NatsConnection, "$SYS.REQ.CLAIMS.UPDATE", { body: made.orders.jwt, want: 3, ms: 5_000 }))
        .length === 3 || undefined,
    { timeoutMs: 60_000 },
  );
  await waitFor(
    "nsc's orders JWT on every server",
    async () => (await lookups(made.orders.key)).filter((j) => j === made.orders.jwt).length === 3,
    { timeoutMs: 60_000 },
  );
}, 600_000);

afterAll(async () => {
  await legacyLive?.close();
  await admin?.close();
  await operator?.stop();
  await env?.stop();
  rmSync(nscHome, { recursive: true, force: true });
  if (previousEnv === undefined) Reflect.deleteProperty(process.env, SYSTEM_CONNECTION_ENV);
  else process.env[SYSTEM_CONNECTION_ENV] = previousEnv;
}, 120_000);

describe("an operator and an account made with nsc, adopted from their seeds", () => {
  it("before the adoption, users nsc made (signed by the account's identity and by its signing key) connect and exchange messages", async () => {
    legacyLive = await asUser(made.creds.legacy);
    const other = await asUser(made.creds.legacySk);
    try {
      expect(await roundTrip(other, legacyLive, "orders.before")).toBe("hello");
    } finally {
      await other.close();
    }
  }, 60_000);

  it("adopted, the operator and accounts keep their keys; the account waits while it would drop nsc's export, and with Accept the project's JWTs reach all 3 servers", async () => {
    await env.kube.create(
      secret("acme-operator-keys", { identity: seedOf(made.operator.key), "signing-1": seedOf(made.operator.signing) }),
    );
    await env.kube.create(
      secret("sys-keys", { identity: seedOf(made.sys.key), "signing-1": seedOf(made.sys.signing) }),
    );
    await env.kube.create(
      secret("orders-keys", {
        identity: seedOf(made.orders.key),
        "signing-1": seedOf(made.orders.signing),
        dev: seedOf(made.orders.dev),
      }),
    );
    // The auth controller's system connection: nsc's system user, as story 14 sets it up.
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "system", namespace },
      spec: { servers: servers(), credentials: { secretKeyRef: { name: "nsc-sys-creds" } } },
    } as KubeObject);
    await env.kube.create(
      authObject("NatsSystemAccount", "sys", {
        operatorRef: { name: "acme" },
        keys: {
          identity: keyRef("sys-keys", "identity"),
          signing: [{ name: "signing-1", ...keyRef("sys-keys", "signing-1") }],
        },
      }),
    );
    await env.kube.create(
      authObject("NatsOperator", "acme", {
        systemAccountRef: { name: "sys" },
        keys: {
          identity: keyRef("acme-operator-keys", "identity"),
          signing: [{ name: "signing-1", ...keyRef("acme-operator-keys", "signing-1") }],
        },
      }),
    );
    await env.kube.create(
      authObject("NatsAccount", "orders", {
        operatorRef: { name: "acme" },
        keys: {
          identity: keyRef("orders-keys", "identity"),
          signing: [
            { name: "signing-1", ...keyRef("orders-keys", "signing-1") },
            {
              name: "dev",
              ...keyRef("orders-keys", "dev"),
              scope: { role: "dev", permissions: { publish: { allow: ["dev.>"] }, subscribe: { allow: ["dev.>"] } } },
            },
          ],
        },
        limits: { connections: 20 },
      }),
    );

    const system = await waitDistributed("NatsSystemAccount", "sys", (o) => o.status?.distribution?.current === 3);
    expect(system.status?.publicKey).toBe(made.sys.key);
    expect(conditionOf(system, "Distributed")?.message).toBe("3 of 3 servers hold this JWT");
    expect(conditionOf(system, "Ready")).toMatchObject({ status: "True", reason: "Distributed" });
    const systemJwt = (await read("NatsOperator", "acme"))?.status?.systemAccount?.jwt ?? "";
    // The project's system account JWT, signed by the adopted operator signing key, on every server.
    expect(systemJwt).not.toBe(made.sys.jwt);
    expect(claimsOf(systemJwt).iss).toBe(made.operator.signing);
    expect(await lookups(made.sys.key)).toEqual([systemJwt, systemJwt, systemJwt]);
    type Event = KubeObject & { reason?: string; regarding?: { kind?: string; name?: string } };
    await waitFor(
      "a JWTPushed Event on the NatsSystemAccount",
      async () =>
        (await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace })).some(
          (e) => e.reason === "JWTPushed" && e.regarding?.kind === "NatsSystemAccount" && e.regarding.name === "sys",
        ),
      { timeoutMs: 30_000 },
    );
    // The revocation nsc signed into SYS's JWT is recovered from the servers and kept.
    expect(claimsOf(systemJwt).nats?.revocations?.[made.sysOld]).toBeDefined();
    const recovered = await read("NatsOperator", "acme");
    expect(recovered?.status?.systemAccount?.revocations?.map((r) => r.publicKey)).toContain(made.sysOld);
    expect(conditionOf(recovered, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
    const shown = await waitFor(
      "the NatsSystemAccount shows the revocation",
      async () => {
        const o = await read("NatsSystemAccount", "sys");
        return o?.status?.revocations?.some((r) => r.publicKey === made.sysOld) ? o : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(shown.status?.publicKey).toBe(made.sys.key);
    expect(await refusedCreds(made.creds.sysOld)).toMatch(/authorization|revoked/i);

    // nsc's JWT exports what the spec does not: nothing is signed, the servers keep nsc's JWT.
    const refused = await waitFor(
      "orders refused: AdoptionDropsClaims",
      async () => {
        const o = await read("NatsAccount", "orders");
        return conditionOf(o, "Ready")?.reason === "AdoptionDropsClaims" ? o : undefined;
      },
      { timeoutMs: 120_000 },
    ).catch(dumpLog);
    expect(conditionOf(refused, "Ready")?.message).toContain(
      "the JWT the servers hold carries claims the one signed from spec would not: exports[0];",
    );
    expect(refused.status?.jwt).toBeUndefined();
    expect(refused.status?.publicKey).toBe(made.orders.key);
    expect(await lookups(made.orders.key)).toEqual([made.orders.jwt, made.orders.jwt, made.orders.jwt]);
    await env.kube.patch(
      { apiVersion: AUTH, kind: "NatsAccount", namespace, name: "orders" },
      { spec: { adoption: { droppedClaims: "Accept" } } },
      "merge",
    );

    const orders = await waitDistributed("NatsAccount", "orders", (o) => o.status?.distribution?.current === 3);
    expect(orders.status?.publicKey).toBe(made.orders.key);
    expect(conditionOf(orders, "Ready")).toMatchObject({ status: "True", reason: "Distributed" });
    expect(claimsOf(orders.status?.jwt).iss).toBe(made.operator.signing);
    expect(claimsOf(orders.status?.jwt).nats?.limits?.conn).toBe(20);
    expect(await lookups(made.orders.key)).toEqual([orders.status?.jwt, orders.status?.jwt, orders.status?.jwt]);
    const operatorNow = await read("NatsOperator", "acme");
    expect(operatorNow?.status?.publicKey).toBe(made.operator.key);
    expect(conditionOf(operatorNow, "Ready")?.status).toBe("True");
  }, 240_000);

  it("after the adoption, the live connection of nsc's user stays and every creds nsc issued connects anew", async () => {
    expect(legacyLive?.isClosed()).toBe(false);
    const fresh = await asUser(made.creds.legacy);
    const signed = await asUser(made.creds.legacySk);
    try {
      expect(await roundTrip(fresh, legacyLive as NatsConnection, "orders.after")).toBe("hello");
      expect(await roundTrip(legacyLive as NatsConnection, signed, "orders.after.2")).toBe("hello");
    } finally {
      await fresh.close();
      await signed.close();
    }
    // nsc's user of the scoped key gets the scope the NatsAccount declares.
    const dev = await asUser(made.creds.dev);
    try {
      expect(await roundTrip(dev, dev, "dev.after")).toBe("hello");
    } finally {
      await dev.close();
    }
  }, 60_000);

  it("a NatsUser the project signs connects, and one with role dev is signed by the adopted scoped key", async () => {
    await env.kube.create(authObject("NatsUser", "fresh", { accountRef: { kind: "NatsAccount", name: "orders" } }));
    await env.kube.create(
      authObject("NatsUser", "fresh-dev", { accountRef: { kind: "NatsAccount", name: "orders" }, role: "dev" }),
    );
    const creds = await waitFor(
      "fresh's and fresh-dev's creds",
      async () => {
        const [a, b] = [await credsOf("fresh-creds"), await credsOf("fresh-dev-creds")];
        return a.includes("NATS USER JWT") && b.includes("NATS USER JWT") ? [a, b] : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const [fresh, dev] = [await asUser(creds[0] ?? ""), await asUser(creds[1] ?? "")];
    try {
      expect(await roundTrip(fresh, legacyLive as NatsConnection, "orders.fresh")).toBe("hello");
      expect(await roundTrip(dev, dev, "dev.fresh")).toBe("hello");
      const jwt = /-----BEGIN NATS USER JWT-----\s+(\S+)/.exec(creds[1] ?? "")?.[1];
      expect(claimsOf(jwt).iss).toBe(made.orders.dev);
    } finally {
      await fresh.close();
      await dev.close();
    }
  }, 120_000);

  it("kubectl nats-operator, as the single executable with only a kubeconfig, shows the cluster's and account's status, previews reading the servers' monitoring through the API, and writes fresh's creds as a nats context", async () => {
    await waitAtRest(env.kube, namespace, 120_000, CLUSTER).catch(dumpLog);
    const { home, plugin, close } = await pluginShell();
    try {
      const status = await plugin("status", `natscluster/${CLUSTER}`, "-n", namespace);
      expect(status).toMatch(new RegExp(`^NatsCluster:\\s+${namespace}/${CLUSTER}$`, "m"));
      expect(status).toMatch(/^Version:\s+2\.15\.2$/m);
      expect(status).toMatch(/^Ready:\s+3\/3 servers$/m);
      for (const i of [0, 1, 2])
        expect(status).toMatch(new RegExp(`^${CLUSTER}-${i}\\s+2\\.15\\.2\\s+true\\s+\\S+$`, "m"));
      expect(status).toMatch(/^Ready\s+True\s/m);
      expect(status).toMatch(/^Settled\s+True\s/m);
      const json = JSON.parse(await plugin("status", `natscluster/${CLUSTER}`, "-n", namespace, "-o", "json")) as {
        ready: { servers: number; planned: number };
        servers: unknown[];
      };
      expect(json.ready).toEqual({ servers: 3, planned: 3 });
      expect(json.servers).toHaveLength(3);

      const account = await plugin("status", "natsaccount/orders", "-n", namespace);
      expect(account).toMatch(/^Distribution:\s+[0-3]\/3 servers hold the current JWT$/m);
      expect(account).toMatch(/^Distributed\s+(True|False)\s/m);

      // The meta leader comes from the servers' /jsz, read through the plugin's relay: the API
      // server's pods proxy, or here, where the API server will not proxy to the simulated node's
      // loopback pod addresses, the pod address the API names (the in-cluster names do not resolve).
      const preview = await plugin("preview", `natscluster/${CLUSTER}`, "-n", namespace);
      expect(preview).toContain("no config change");
      expect(preview).toMatch(new RegExp(`meta leader: ${CLUSTER}-[0-2]`));
      expect(preview).not.toContain("blocked:");

      const client = (
        await env.kube.get<KubeObject & { status?: { endpoints?: { client?: string } } }>({
          apiVersion: "cluster.nats-operator.io/v1beta1",
          kind: "NatsCluster",
          namespace,
          name: CLUSTER,
        })
      )?.status?.endpoints?.client;
      expect(client).toBeDefined();
      const written = await plugin("creds", "natsuser/fresh", "-n", namespace);
      expect(written).toContain(`nats --context ${namespace}-fresh`);
      const contextPath = join(home, ".config", "nats", "context", `${namespace}-fresh.json`);
      const context = JSON.parse(readFileSync(contextPath, "utf8")) as { url: string; creds: string };
      expect(context.url).toBe(client);
      expect(context.creds).toBe(join(home, ".config", "nats", "creds", "nats-operator", `${namespace}-fresh.creds`));
      expect(statSync(context.creds).mode & 0o777).toBe(0o600);
      // The creds written connect: the same file the user's Secret holds.
      expect(readFileSync(context.creds, "utf8")).toBe(await credsOf("fresh-creds"));

      const printed = await plugin(
        "creds",
        "natsuser/fresh",
        "-n",
        namespace,
        "--print",
        "--server",
        "nats://example:4222",
      );
      expect(printed).toContain('"url": "nats://example:4222"');
      expect(printed).toContain("NATS USER JWT");

      const missing = await plugin("status", "natscluster/absent", "-n", namespace).catch(
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining("not found") });
    } finally {
      close();
    }
  }, 360_000);

  it("raising limits.connections re-signs the account and reaches all 3 servers", async () => {
    const before = await read("NatsAccount", "orders");
    await env.kube.patch(
      { apiVersion: AUTH, kind: "NatsAccount", namespace, name: "orders" },
      { spec: { limits: { connections: 30 } } },
      "merge",
    );
    const after = await waitDistributed(
      "NatsAccount",
      "orders",
      (o) => o.status?.jwtHash !== before?.status?.jwtHash && o.status?.distribution?.current === 3,
    );
    expect(claimsOf(after.status?.jwt).nats?.limits?.conn).toBe(30);
    expect(await lookups(made.orders.key)).toEqual([after.status?.jwt, after.status?.jwt, after.status?.jwt]);
  }, 180_000);

  it("deleting a NatsUser of the system account closes its live connection and revokes it in the system account JWT on every server", async () => {
    await env.kube.create(
      authObject("NatsUser", "sys-temp", { accountRef: { kind: "NatsSystemAccount", name: "sys" } }),
    );
    const creds = await waitFor(
      "sys-temp's creds",
      async () => ((await credsOf("sys-temp-creds")).includes("NATS USER JWT") ? credsOf("sys-temp-creds") : undefined),
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const user = await waitFor(
      "sys-temp carries the revoke finalizer",
      async () => {
        const u = await read("NatsUser", "sys-temp");
        return u?.metadata.finalizers?.includes("auth.nats-operator.io/revoke") && u.status?.publicKey ? u : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch(dumpLog);
    const key = user.status?.publicKey ?? "";
    const nc = await asUser(creds, false);
    await nc.flush();
    let closedAt = 0;
    const closed = nc.closed().then(() => void (closedAt = Date.now()));
    const deletedAt = Date.now();
    await env.kube.delete({ apiVersion: AUTH, kind: "NatsUser", namespace, name: "sys-temp" });
    await waitFor("sys-temp's connection closed", async () => closedAt > 0, {
      timeoutMs: 30_000,
      intervalMs: 200,
    }).catch(dumpLog);
    await closed;
    expect(closedAt - deletedAt).toBeLessThan(15_000);
    await waitFor("sys-temp gone", async () => (await read("NatsUser", "sys-temp")) === undefined, {
      timeoutMs: 60_000,
    }).catch(dumpLog);
    const systemJwt = (await read("NatsOperator", "acme"))?.status?.systemAccount?.jwt ?? "";
    expect(claimsOf(systemJwt).nats?.revocations?.[key]).toBeDefined();
    await waitDistributed(
      "NatsSystemAccount",
      "sys",
      (o) => o.status?.distribution?.current === 3 && o.status.jwtHash !== undefined,
    );
    expect(await lookups(made.sys.key)).toEqual([systemJwt, systemJwt, systemJwt]);
    type Event = KubeObject & { reason?: string; regarding?: { kind?: string; name?: string } };
    await waitFor(
      "a JWTPushed Event on the NatsSystemAccount",
      async () =>
        (await env.kube.list<Event>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace })).some(
          (e) => e.reason === "JWTPushed" && e.regarding?.kind === "NatsSystemAccount" && e.regarding.name === "sys",
        ),
      { timeoutMs: 30_000 },
    );
    // The revocation nsc signed into SYS's JWT is recovered from the servers and kept.
    expect(claimsOf(systemJwt).nats?.revocations?.[made.sysOld]).toBeDefined();
    const recovered = await read("NatsOperator", "acme");
    expect(recovered?.status?.systemAccount?.revocations?.map((r) => r.publicKey)).toContain(made.sysOld);
    expect(conditionOf(recovered, "RevocationsUnrecovered")).toMatchObject({ status: "False", reason: "Recovered" });
    const shown = await waitFor(
      "the NatsSystemAccount shows the revocation",
      async () => {
        const o = await read("NatsSystemAccount", "sys");
        return o?.status?.revocations?.some((r) => r.publicKey === made.sysOld) ? o : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(shown.status?.publicKey).toBe(made.sys.key);
    expect(await refusedCreds(made.creds.sysOld)).toMatch(/authorization|revoked/i);
    expect(await refusedCreds(creds)).toMatch(/authorization|revoked/i);
  }, 180_000);
});
