/**
 * Auth-plane benchmark (issue 12): on one control plane and one 3-server operator-mode NATS cluster
 * (nats-server 2.15, rendered by the operator under a NatsOperator that sign-account signs, with a
 * system connection), two measures:
 *
 * 1. 200 NatsUsers of one NatsAccount, created 20 at a time, until every one reads Ready=True
 *    (its creds Secret written): wall time, and API server and NATS requests per user.
 * 2. One change of the account's `limits.connections`, until the account reads Distributed=True
 *    "3 of 3 servers hold this JWT" for the new JWT: wall time, API and NATS requests.
 *
 * API requests are those of every function through the operator's transport (the cluster
 * functions are at rest meanwhile); NATS requests are the messages sign-account's system
 * connection published, from the servers' CONNZ (`in_msgs` of that connection). sign-account runs
 * in this process, as `npm start` runs it.
 */
import { connect, createInbox, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { signAccount } from "../functions/sign-account/index.ts";
import { SYSTEM_CONNECTION_ENV } from "../functions/sign-account/servers/system-connection.ts";
import type { KubeObject } from "../shared/kube/object.ts";
import type { KubeTransport } from "../shared/kube/transport.ts";
import { quickstart, waitAtRest } from "../test/integration/cluster/support/natscluster.ts";
import { startOperator } from "../test/integration/support/operator.ts";
import { startEnvironment } from "../test/integration/support/environment.ts";
import { waitFor } from "../test/harness/wait.ts";

const users = Number(process.env.BENCH_AUTH_USERS ?? 200);
const batch = 20;
const AUTH = "auth.nats-operator.io/v1beta1";
const CLUSTER = "bench";

type Condition = { type: string; status: string; reason: string; message: string };
type AuthObject = KubeObject & {
  spec: Record<string, unknown>;
  status?: { publicKey?: string; jwtHash?: string; conditions?: Condition[]; distribution?: { current?: number } };
};

function counting(transport: KubeTransport): { transport: KubeTransport; count: () => number } {
  let requests = 0;
  return {
    transport: {
      ...transport,
      request: (...args: Parameters<KubeTransport["request"]>) => {
        requests++;
        return transport.request(...args);
      },
    },
    count: () => requests,
  };
}

/** Raw answers to a request every server answers, within 2 s. */
async function gather(nc: NatsConnection, subject: string, body = ""): Promise<string[]> {
  const inbox = createInbox();
  const answers: string[] = [];
  const sub = nc.subscribe(inbox);
  const done = (async () => {
    for await (const m of sub) answers.push(m.string());
  })();
  nc.publish(subject, body, { reply: inbox });
  await new Promise((r) => setTimeout(r, 2_000));
  sub.unsubscribe();
  await done;
  return answers;
}

async function main(): Promise<void> {
  const env = await startEnvironment({ profile: "cluster" });
  const namespace = await env.namespace("authbench");
  process.env[SYSTEM_CONNECTION_ENV] = `${namespace}/system`;
  const counted = counting(env.transport);
  const operator = await startOperator(counted.transport, {
    extraFunctions: [signAccount],
    extraKinds: ["NatsOperator", "NatsSystemAccount", "NatsAccount", "NatsUser", "Secret"],
  });
  const kube = env.kube;
  const authObject = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
    ({ apiVersion: AUTH, kind, metadata: { name, namespace }, spec }) as KubeObject;
  const credsOf = async (name: string) => {
    const s = await kube.get<KubeObject & { data?: Record<string, string> }>({
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      name,
    });
    return Buffer.from(s?.data?.["user.creds"] ?? "", "base64").toString("utf8");
  };
  const servers = [0, 1, 2].map((i) => `nats://${CLUSTER}-${i}-0.${CLUSTER}-headless.${namespace}.svc:4222`);
  let admin: NatsConnection | undefined;
  try {
    const setupStart = performance.now();
    await kube.create(authObject("NatsOperator", "main", { systemAccountRef: { name: "sys" } }));
    await kube.create(authObject("NatsSystemAccount", "sys", { operatorRef: { name: "main" } }));
    await kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsOperatorTrust",
      metadata: { name: "main", namespace },
      spec: { operatorRef: { name: "main" } },
    } as KubeObject);
    for (const [name, preset] of [["controller", "cluster-controller"], ["pusher", "auth-controller"], ["admin"]])
      await kube.create(
        authObject("NatsUser", name as string, {
          accountRef: { kind: "NatsSystemAccount", name: "sys" },
          ...(preset ? { preset } : {}),
        }),
      );
    await kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      metadata: { name: "system", namespace },
      spec: { servers, credentials: { secretKeyRef: { name: "pusher-creds" } } },
    } as KubeObject);
    await waitFor("the controller's creds", async () => (await credsOf("controller-creds")).includes("JWT"), {
      timeoutMs: 60_000,
    });
    const manifest = quickstart(namespace, CLUSTER);
    manifest.spec["auth"] = {
      trustRef: { name: "main" },
      systemCredentials: { secretKeyRef: { name: "controller-creds" } },
    };
    await kube.create(manifest);
    await waitAtRest(kube, namespace, 300_000, CLUSTER);
    await kube.create(
      authObject("NatsAccount", "team", { operatorRef: { name: "main" }, limits: { connections: 500 } }),
    );
    const readAccount = () => kube.get<AuthObject>({ apiVersion: AUTH, kind: "NatsAccount", namespace, name: "team" });
    const distributed = (a: AuthObject | undefined) =>
      a?.status?.conditions?.some((c) => c.type === "Distributed" && c.status === "True") === true &&
      a.status?.distribution?.current === 3;
    await waitFor("team distributed", async () => distributed(await readAccount()), { timeoutMs: 120_000 });
    admin = await connect({
      servers,
      authenticator: credsAuthenticator(new TextEncoder().encode(await credsOf("admin-creds"))),
      timeout: 5_000,
    });
    const pusherKey =
      (await kube.get<AuthObject>({ apiVersion: AUTH, kind: "NatsUser", namespace, name: "pusher" }))?.status
        ?.publicKey ?? "";
    const sysKey =
      (await kube.get<AuthObject>({ apiVersion: AUTH, kind: "NatsSystemAccount", namespace, name: "sys" }))?.status
        ?.publicKey ?? "";
    /** Messages sign-account's system connection has published, summed over the servers it is on. */
    const natsPublished = async () => {
      const answers = await gather(
        admin as NatsConnection,
        "$SYS.REQ.SERVER.PING.CONNZ",
        JSON.stringify({ acc: sysKey, user: pusherKey }),
      );
      return answers
        .map((a) => JSON.parse(a) as { data?: { connections?: { in_msgs?: number }[] } })
        .flatMap((a) => a.data?.connections ?? [])
        .reduce((sum, c) => sum + (c.in_msgs ?? 0), 0);
    };
    process.stdout.write(`auth: setup (operator, cluster at rest, account distributed) in ${seconds(setupStart)} s\n`);

    // 1. 200 users to Ready.
    let apiBefore = counted.count();
    let natsBefore = await natsPublished();
    const usersStart = performance.now();
    for (let i = 0; i < users; i += batch)
      await Promise.all(
        Array.from({ length: Math.min(batch, users - i) }, (_, j) =>
          kube.create(
            authObject("NatsUser", `u${String(i + j).padStart(3, "0")}`, {
              accountRef: { kind: "NatsAccount", name: "team" },
            }),
          ),
        ),
      );
    const applied = performance.now();
    await waitFor(
      `${users} NatsUsers Ready`,
      async () => {
        const list = await kube.list<AuthObject>({ apiVersion: AUTH, kind: "NatsUser", namespace });
        const ready = list.filter(
          (u) =>
            u.metadata.name.startsWith("u") &&
            u.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        );
        return ready.length === users;
      },
      { timeoutMs: 360_000, intervalMs: 500 },
    );
    const usersDone = performance.now();
    const usersApi = counted.count() - apiBefore;
    const usersQuiet = (await quiet(counted.count)) - apiBefore;
    const usersNats = (await natsPublished()) - natsBefore;
    process.stdout.write(
      `auth: ${users} NatsUsers Ready in ${seconds(usersStart, usersDone)} s (created in ${seconds(usersStart, applied)} s); ` +
        `API requests ${usersApi} until Ready (${(usersApi / users).toFixed(1)} per user), ${usersQuiet} until idle ` +
        `(${(usersQuiet / users).toFixed(1)} per user); NATS requests ${usersNats} (${(usersNats / users).toFixed(2)} per user)\n`,
    );

    // 2. One limit change to Distributed on 3 servers.
    const before = await readAccount();
    apiBefore = counted.count();
    natsBefore = await natsPublished();
    const changeStart = performance.now();
    await kube.patch(
      { apiVersion: AUTH, kind: "NatsAccount", namespace, name: "team" },
      { spec: { limits: { connections: 600 } } },
      "merge",
    );
    await waitFor(
      "team re-signed and distributed",
      async () => {
        const a = await readAccount();
        return distributed(a) && a?.status?.jwtHash !== before?.status?.jwtHash;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const changeDone = performance.now();
    const changeApi = counted.count() - apiBefore;
    const changeQuiet = (await quiet(counted.count)) - apiBefore;
    const changeNats = (await natsPublished()) - natsBefore;
    process.stdout.write(
      `auth: limits.connections change Distributed (3 of 3) in ${seconds(changeStart, changeDone)} s; ` +
        `API requests ${changeApi} until Distributed, ${changeQuiet} until idle; NATS requests ${changeNats}\n`,
    );
  } catch (error) {
    process.stdout.write(operator.log.slice(-40).join(""));
    throw error;
  } finally {
    await admin?.close();
    await operator.stop();
    await env.stop();
  }
}

const seconds = (from: number, to = performance.now()): string => ((to - from) / 1000).toFixed(1);

/** Waits until `count` has not moved for 3 s (the functions are idle again); the count then. */
async function quiet(count: () => number): Promise<number> {
  let last = count();
  let since = performance.now();
  while (performance.now() - since < 3_000) {
    await new Promise((r) => setTimeout(r, 250));
    if (count() !== last) {
      last = count();
      since = performance.now();
    }
  }
  return last;
}

await main();
