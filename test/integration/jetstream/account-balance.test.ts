// harness: real node
// Story 7's account balancer on real servers: a three-server JetStream cluster where account APP
// has two pools of six R3 streams each, `hot` all led by js-0 and `cold` all led by js-1. A
// NatsBalancer on APP's own connection (no system user) evens the leaders of each pool one move at
// a time, refuses to move while its pools overlap, yields while a NatsSystemBalancer has a move pending on APP's streams, and waits while
// another balancer holds the NATS cluster's move lease.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import type { NatsConnection } from "@nats-io/transport-node";
import { balance } from "../../../functions/balance/index.ts";
import type { NatsBalancer } from "../../../functions/balance/account/resource.ts";
import type { NatsSystemBalancer } from "../../../functions/balance/system/resource.ts";
import { readLease, writeLease } from "../../../functions/balance/pass/lease.ts";
import { pingEvent } from "../../../shared/local/ping-event.ts";
import { createEventRecorder } from "../../../shared/kube/events.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { writeStatus } from "../../../shared/kube/status.ts";
import { dispatch, type DispatchDeps } from "../../../shared/runtime/dispatch.ts";
import type { Outcome } from "../../../shared/runtime/outcome.ts";
import { createLogger } from "../../../shared/telemetry/logger.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { js, startNatsCluster, type NatsCluster, type ServerControl, createStream } from "./support/nats-cluster.ts";
import { CORE, create, JS, resource } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

// Account APP, where a client without credentials lands, and a system account the balancer never uses.
const ACCOUNTS = [
  "accounts {",
  "  APP { jetstream: enabled, users: [{ user: app, password: app }] }",
  "  SYS { users: [{ user: sys, password: sys }] }",
  "}",
  "system_account: SYS",
  "no_auth_user: app",
];
const HOT = Array.from({ length: 6 }, (_, i) => `HOT${i + 1}`);
const COLD = Array.from({ length: 6 }, (_, i) => `COLD${i + 1}`);

let env: Environment;
let nats: NatsCluster & ServerControl;
let client: NatsConnection;
let ns: string;
let deps: DispatchDeps;

type StreamInfo = { cluster?: { leader?: string } };
const leaderOf = async (stream: string) =>
  (await js<StreamInfo>(client, `STREAM.INFO.${stream}`)).cluster?.leader ?? "";

/** Stream leaders per server in one pool, as the servers say. */
async function leadersPerServer(pool: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map(nats.names.map((n) => [n, 0]));
  for (const stream of pool) {
    const leader = await leaderOf(stream);
    counts.set(leader, (counts.get(leader) ?? 0) + 1);
  }
  return counts;
}
const skewOf = (counts: Map<string, number>) => Math.max(...counts.values()) - Math.min(...counts.values());

async function leadAllFrom(server: string, pool: readonly string[]): Promise<void> {
  for (const stream of pool)
    await waitFor(
      `${stream} led by ${server}`,
      async () => {
        if ((await leaderOf(stream)) === server) return true;
        await js(client, `STREAM.LEADER.STEPDOWN.${stream}`, { placement: { preferred: server } });
        await new Promise((r) => setTimeout(r, 300));
        return (await leaderOf(stream)) === server ? true : undefined;
      },
      { timeoutMs: 90_000 },
    );
}

/** One pass, delivered as the balancer's PingSource would deliver its tick. */
function pass(): Promise<Outcome> {
  const ce = pingEvent(ns, "orders-balance", {
    data: JSON.stringify({ kind: "NatsBalancer", namespace: ns, name: "orders" }),
    ceOverrides: { extensions: { target: "balance" } },
  });
  return dispatch(balance, ce, deps);
}

const balancer = async () =>
  (await env.kube.get<NatsBalancer>({
    apiVersion: JS,
    kind: "NatsBalancer",
    namespace: ns,
    name: "orders",
  })) as NatsBalancer;
const conditionOf = (b: NatsBalancer, type: string) => b.status?.conditions?.find((c) => c.type === type);

async function events(reason: string): Promise<string[]> {
  const list = await env.kube.list<KubeObject & { reason?: string; note?: string }>({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    namespace: ns,
  });
  return list.filter((e) => e.reason === reason).map((e) => e.note ?? "");
}

async function foreignClusterMidRollout(): Promise<void> {
  const other = await env.namespace("account-balance-other");
  const cluster = await create(
    env.kube,
    resource("cluster.nats-operator.io/v1beta1", "NatsCluster", other, "js", { version: "2.15.2", replicas: 3 }),
  );
  const settled = {
    type: "Settled",
    status: "False",
    reason: "ServersSilent",
    message: "js-1 is restarting",
    lastTransitionTime: new Date().toISOString(),
  };
  await env.kube.applyStatus(
    { ...cluster, status: { servers: nats.names.map((name) => ({ name })), conditions: [settled] } },
    "test",
  );
}

const HOT_POOL = { name: "hot", selector: { matchLabels: { tier: "hot" } } };
const COLD_POOL = { name: "cold", selector: { matchLabels: { tier: "cold" } } };

async function setPools(pools: unknown[]): Promise<void> {
  const b = await balancer();
  await env.kube.replace({ ...b, spec: { ...b.spec, pools } });
}

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 3, config: ACCOUNTS, clientOptions: { user: "app", pass: "app" } });
  client = await nats.client();
  for (const name of [...HOT, ...COLD])
    await createStream(client, { name, subjects: [`${name.toLowerCase()}.>`], num_replicas: 3 });
  await leadAllFrom("js-0", HOT);
  await leadAllFrom("js-1", COLD);
  ns = await env.namespace("account-balance");
  deps = {
    log: createLogger({ level: "warn", destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    kube: async () => env.kube,
    recorder: async (name) => createEventRecorder(env.kube, `nats-operator.io/${name}`, "test"),
  };
  // No credentials: the connection lands in APP, as an application's own connection would.
  await create(env.kube, resource(CORE, "NatsConnection", ns, "app", { servers: nats.urls }));
  for (const [pool, tier] of [
    [HOT, "hot"],
    [COLD, "cold"],
  ] as const)
    for (const name of pool) {
      const stream = resource(JS, "NatsStream", ns, name.toLowerCase(), { connectionRef: { name: "app" }, name });
      await create(env.kube, { ...stream, metadata: { ...stream.metadata, labels: { tier } } });
    }
  await create(
    env.kube,
    resource(JS, "NatsBalancer", ns, "orders", {
      connectionRef: { name: "app" },
      interval: "1s",
      pools: [HOT_POOL, { name: "all", selector: {} }],
    }),
  );
}, 240_000);

afterAll(async () => {
  await balance.shutdown?.();
  await client?.close();
  await nats?.stop();
  await env?.stop();
}, 60_000);

describe("story 7: a NatsBalancer evens the leaders of its account's pools", () => {
  it("refuses to move while its pools overlap, with a condition and a Warning", async () => {
    await pass();
    await pass();
    const b = await balancer();
    expect(conditionOf(b, "Overlapping")).toMatchObject({ status: "True", reason: "PoolsOverlap" });
    expect(conditionOf(b, "Overlapping")?.message).toContain("is selected by pools hot, all");
    expect(conditionOf(b, "Holding")).toMatchObject({ status: "True", reason: "PoolsOverlap" });
    expect((await events("PoolsOverlap")).length).toBe(1);
    expect(await events("MoveStarted")).toEqual([]);
    await setPools([HOT_POOL, COLD_POOL]);
  }, 60_000);

  it("yields while a NatsSystemBalancer has a move pending on one of the account's streams", async () => {
    const system = (await create(
      env.kube,
      resource(JS, "NatsSystemBalancer", ns, "even", { connectionRef: { name: "system" } }),
    )) as NatsSystemBalancer;
    const pending = [
      { kind: "Leader" as const, account: "APP", stream: "HOT3", consumer: "", from: "js-0", to: "js-2" },
    ];
    await writeStatus(env.kube, system, { pending }, "test");
    const outcome = await pass();
    const b = await balancer();
    expect(conditionOf(b, "Overlapping")).toMatchObject({ status: "False", reason: "PoolsDisjoint" });
    expect(conditionOf(b, "Holding")).toMatchObject({ status: "True", reason: "YieldingToSystemBalancer" });
    expect(await events("MoveStarted")).toEqual([]);
    // Its PingSource follows interval while it exists.
    expect(outcome.schedules).toEqual([expect.objectContaining({ poll: { every: "1s" } })]);
    await env.kube.delete({ apiVersion: JS, kind: "NatsSystemBalancer", namespace: ns, name: "even" });
  }, 60_000);

  it("waits while another balancer holds the NATS cluster's move lease", async () => {
    const lease = await readLease(env.kube, ns, "js");
    const holder = `NatsSystemBalancer ${ns}/even`;
    expect(await writeLease(env.kube, lease, { kind: "take", holder, at: new Date() })).toBe(true);
    await pass();
    const b = await balancer();
    expect(conditionOf(b, "Holding")).toMatchObject({ status: "True", reason: "MoveLeaseHeld" });
    expect(conditionOf(b, "Holding")?.message).toContain(holder);
    expect(await events("MoveStarted")).toEqual([]);
    expect(
      await writeLease(env.kube, await readLease(env.kube, ns, "js"), { kind: "release", holder, at: new Date() }),
    ).toBe(true);
  }, 60_000);

  it("brings each pool's leader skew from 6 to at most 1, one move at a time, through the lease", async () => {
    // Another team's NatsCluster whose servers bear the same names, mid-rollout in a namespace the
    // balancer does not name: it pauses nothing here.
    await foreignClusterMidRollout();
    expect(skewOf(await leadersPerServer(HOT))).toBe(6);
    expect(skewOf(await leadersPerServer(COLD))).toBe(6);
    const holders = new Set<string>();
    const lastMoves = new Set<string>();
    const skewOfPool = (b: NatsBalancer, name: string) => b.status?.pools?.find((p) => p.name === name)?.leaderSkew;
    for (let i = 0; i < 90; i++) {
      await Promise.all([pass(), pass()]);
      const b = await balancer();
      const lease = await readLease(env.kube, ns, "js");
      if (lease.holder) holders.add(lease.holder);
      if (b.status?.lastMove?.time) lastMoves.add(JSON.stringify(b.status.lastMove));
      if ((skewOfPool(b, "hot") ?? 6) <= 1 && (skewOfPool(b, "cold") ?? 6) <= 1 && !lease.holder) break;
      await new Promise((r) => setTimeout(r, 700));
    }
    const b = await balancer();
    // The Holding condition first: when the skew stays, it says why no move was made.
    expect(conditionOf(b, "Holding")).toMatchObject({ status: "False", reason: "Settled" });
    expect(b.status?.pools).toEqual([
      { name: "hot", streams: 6, leaderSkew: expect.any(Number) },
      { name: "cold", streams: 6, leaderSkew: expect.any(Number) },
    ]);
    expect(skewOfPool(b, "hot")).toBeLessThanOrEqual(1);
    expect(skewOfPool(b, "cold")).toBeLessThanOrEqual(1);
    expect(skewOf(await leadersPerServer(HOT))).toBeLessThanOrEqual(1);
    expect(skewOf(await leadersPerServer(COLD))).toBeLessThanOrEqual(1);
    expect(conditionOf(b, "Ready")).toMatchObject({ status: "True", reason: "Balancing" });
    expect([...holders]).toEqual([`NatsBalancer ${ns}/orders`]);
    // Four moves take each pool from 6/0/0 to 2/2/2. Two deliveries of every tick, one move each:
    // the lease and the status claim let one of them through, so every move started is one
    // lastMove seen.
    const started = await events("MoveStarted");
    expect(started.length).toBe(lastMoves.size);
    expect(started.filter((n) => / in pool hot from js-0 to js-\d$/.test(n)).length).toBeGreaterThanOrEqual(4);
    expect(started.filter((n) => / in pool cold from js-1 to js-\d$/.test(n)).length).toBeGreaterThanOrEqual(4);
    expect(started.every((n) => /^moving the leader of stream (HOT|COLD)\d in pool (hot|cold) from/.test(n))).toBe(
      true,
    );
  }, 240_000);

  it("asks for no PingSource once deleted", async () => {
    await env.kube.delete({ apiVersion: JS, kind: "NatsBalancer", namespace: ns, name: "orders" });
    await waitFor(
      "the balancer gone",
      async () =>
        (await env.kube.get({ apiVersion: JS, kind: "NatsBalancer", namespace: ns, name: "orders" }))
          ? undefined
          : true,
      { timeoutMs: 30_000 },
    );
    const outcome = await pass();
    expect(outcome.schedules).toEqual([{ schedule: { namespace: ns, name: "orders-balance" }, poll: false }]);
  }, 60_000);
});
