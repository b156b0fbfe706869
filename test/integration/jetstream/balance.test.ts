// harness: real node
// Story 7 on real servers: a three-server JetStream cluster whose nine R3 streams are all led by
// one server. A NatsSystemBalancer on a system-account connection evens the leaders one move at a
// time, records each move, holds while a server is down or the cluster is mid-rollout, hands its
// move lease on only once it lapses, and with moves.placement evens the copies of nine R1 streams
// that all sit on one server. An older balancer of another NATS system whose server is also named
// js-0 does not make it a duplicate.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import type { NatsConnection } from "@nats-io/transport-node";
import { balance } from "../../../functions/balance/index.ts";
import type { NatsSystemBalancer } from "../../../functions/balance/system/resource.ts";
import { isOlder } from "../../../functions/balance/system/duplicate.ts";
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

// An application account exporting the stepdown services (the jetstream-stepdown preset) and a
// system account importing them under `acc.APP.`; a client without credentials is the system user.
const ACCOUNTS = [
  "accounts {",
  "  APP {",
  "    jetstream: enabled",
  "    users: [{ user: app, password: app }]",
  '    exports: [{ service: "$JS.API.STREAM.LEADER.STEPDOWN.*" }, { service: "$JS.API.CONSUMER.LEADER.STEPDOWN.*.*" }]',
  "  }",
  "  SYS {",
  "    users: [{ user: sys, password: sys }]",
  "    imports: [",
  '      { service: { account: APP, subject: "$JS.API.STREAM.LEADER.STEPDOWN.*" }, to: "acc.APP.$JS.API.STREAM.LEADER.STEPDOWN.*" }',
  '      { service: { account: APP, subject: "$JS.API.CONSUMER.LEADER.STEPDOWN.*.*" }, to: "acc.APP.$JS.API.CONSUMER.LEADER.STEPDOWN.*.*" }',
  "    ]",
  "  }",
  "}",
  "system_account: SYS",
  "no_auth_user: sys",
];
const STREAMS = Array.from({ length: 9 }, (_, i) => `ORDERS${i + 1}`);

let env: Environment;
let nats: NatsCluster & ServerControl;
let other: NatsCluster | undefined;
let namesake: NatsSystemBalancer;
let client: NatsConnection;
let ns: string;
let deps: DispatchDeps;

type StreamInfo = { cluster?: { leader?: string; replicas?: { name: string; current: boolean }[] } };
const leaderOf = async (stream: string) =>
  (await js<StreamInfo>(client, `STREAM.INFO.${stream}`)).cluster?.leader ?? "";

/** Stream leaders per server, as the servers say (not as the balancer says). */
async function leadersPerServer(): Promise<Map<string, number>> {
  const counts = new Map(nats.names.map((n) => [n, 0]));
  for (const stream of STREAMS) {
    const leader = await leaderOf(stream);
    counts.set(leader, (counts.get(leader) ?? 0) + 1);
  }
  return counts;
}
const skewOf = (counts: Map<string, number>) => Math.max(...counts.values()) - Math.min(...counts.values());

/** Hands every stream's leadership to `server`, as an operator stepping leaders down by hand would. */
async function leadAllFrom(server: string): Promise<void> {
  for (const stream of STREAMS) {
    let answer: unknown;
    let info: StreamInfo | undefined;
    await waitFor(
      `${stream} led by ${server}`,
      async () => {
        info = await js<StreamInfo>(client, `STREAM.INFO.${stream}`);
        const leader = info.cluster?.leader ?? "";
        if (leader === server) return true;
        // No leader: an election is under way (a cluster just up on a busy machine, or the last
        // request's); asking again now would only start another.
        if (leader === "") return undefined;
        answer = await js(client, `STREAM.LEADER.STEPDOWN.${stream}`, { placement: { preferred: server } });
        await waitFor(
          `${stream} re-elected`,
          async () => {
            const now = await leaderOf(stream);
            return now !== "" && now !== leader ? true : undefined;
          },
          { timeoutMs: 10_000 },
        ).catch(() => undefined);
        return (await leaderOf(stream)) === server ? true : undefined;
      },
      { timeoutMs: 150_000 },
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}; last stepdown answer ${JSON.stringify(answer)}; ${JSON.stringify(info?.cluster)}`,
      );
    });
  }
}

/** One pass, delivered as the balancer's PingSource would deliver its tick. */
function pass(name = "even"): Promise<Outcome> {
  const ce = pingEvent(ns, `${name}-system-balance`, {
    data: JSON.stringify({ kind: "NatsSystemBalancer", namespace: ns, name }),
    ceOverrides: { extensions: { target: "balance" } },
  });
  return dispatch(balance, ce, deps);
}

const balancer = async (name = "even") =>
  (await env.kube.get<NatsSystemBalancer>({
    apiVersion: JS,
    kind: "NatsSystemBalancer",
    namespace: ns,
    name,
  })) as NatsSystemBalancer;
const holding = (b: NatsSystemBalancer) => b.status?.conditions?.find((c) => c.type === "Holding");

async function events(reason: string, about?: string): Promise<string[]> {
  const list = await env.kube.list<KubeObject & { reason?: string; note?: string; regarding?: { name?: string } }>({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    namespace: ns,
  });
  return list
    .filter((e) => e.reason === reason && (about === undefined || e.regarding?.name === about))
    .map((e) => e.note ?? "");
}

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 3, config: ACCOUNTS, clientOptions: { user: "app", pass: "app" } });
  client = await nats.client();
  for (const name of STREAMS)
    await createStream(client, { name, subjects: [`${name.toLowerCase()}.>`], num_replicas: 3 });
  await leadAllFrom("js-0");
  ns = await env.namespace("balance");
  deps = {
    log: createLogger({ level: "warn", destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    kube: async () => env.kube,
    recorder: async (name) => createEventRecorder(env.kube, `nats-operator.io/${name}`, "test"),
  };
  await create(env.kube, resource(CORE, "NatsConnection", ns, "system", { servers: nats.urls }));
  namesake = await startNamesakeBalancer();
  await create(
    env.kube,
    resource(JS, "NatsSystemBalancer", ns, "even", { connectionRef: { name: "system" }, interval: "1s" }),
  );
}, 240_000);

/**
 * Another team's NATS system whose one server is also named js-0, with its own balancer, created
 * (a second) before `even` and showing js-0 in its status as after a pass of its own.
 */
async function startNamesakeBalancer(): Promise<NatsSystemBalancer> {
  other = await startNatsCluster({ servers: 1, config: ACCOUNTS, clientOptions: { user: "app", pass: "app" } });
  const namespace = await env.namespace("balance-elsewhere");
  await create(env.kube, resource(CORE, "NatsConnection", namespace, "system", { servers: other.urls }));
  const created = (await create(
    env.kube,
    resource(JS, "NatsSystemBalancer", namespace, "elsewhere", { connectionRef: { name: "system" } }),
  )) as NatsSystemBalancer;
  await writeStatus(env.kube, created, { servers: [{ name: "js-0", leaders: 0, replicas: 0 }] }, "test");
  const at = created.metadata.creationTimestamp ?? "";
  await waitFor("a second after its creation", async () => new Date().toISOString().slice(0, 19) + "Z" > at, {
    timeoutMs: 5_000,
  });
  return created;
}

afterAll(async () => {
  await balance.shutdown?.();
  await client?.close();
  await nats?.stop();
  await other?.stop();
  await env?.stop();
}, 60_000);

describe("story 7: a NatsSystemBalancer evens stream leaders", () => {
  it("brings leader skew from 9 to at most 1, one move at a time, recording each move", async () => {
    expect(skewOf(await leadersPerServer())).toBe(9);
    const seenPending: number[] = [];
    const lastMoves = new Set<string>();
    for (let i = 0; i < 60; i++) {
      // Two deliveries of one tick at once: the status claim lets only one of them move.
      await Promise.all([pass(), pass()]);
      const b = await balancer();
      seenPending.push(b.status?.pending?.length ?? 0);
      if (b.status?.lastMove?.time) lastMoves.add(JSON.stringify(b.status.lastMove));
      if ((b.status?.skew?.leaders ?? 9) <= 1 && (b.status?.pending ?? []).length === 0) break;
      await new Promise((r) => setTimeout(r, 700));
    }
    const b = await balancer();
    expect(b.status?.skew?.leaders).toBeLessThanOrEqual(1);
    expect(skewOf(await leadersPerServer())).toBeLessThanOrEqual(1);
    expect(Math.max(...seenPending)).toBe(1);
    expect(b.status?.lastMove).toMatchObject({ kind: "Leader", account: "APP", from: "js-0" });
    expect(b.status?.capabilities).toEqual({ placement: false, leader: "Full" });
    expect(b.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      reason: "Balancing",
    });
    // Six moves take 9/0/0 to 3/3/3; every move was started once and seen done.
    const started = await events("MoveStarted");
    expect(started.length).toBe(lastMoves.size);
    expect(started.length).toBeGreaterThanOrEqual(6);
    expect(started[0]).toMatch(/^moving the leader of stream ORDERS\d in account APP from js-0 to js-\d$/);
    expect((await events("MoveDone")).length).toBe(started.length);
  }, 180_000);

  it("is no duplicate of an older balancer of another NATS system whose servers share its names", async () => {
    const even = await balancer();
    expect(isOlder(namesake, even)).toBe(true);
    await pass();
    expect((await balancer()).status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      reason: "Balancing",
    });
  }, 60_000);

  it("holds while a server is down, and resumes once it is back", async () => {
    await nats.stopServer(2);
    const moves = (await events("MoveStarted")).length;
    const held = await waitFor(
      "Holding=True while js-2 is down",
      async () => {
        await pass();
        const b = await balancer();
        return holding(b)?.status === "True" ? b : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(holding(held)?.reason).toBe("Unsettled");
    expect(holding(held)?.message).toContain("js-2");
    for (let i = 0; i < 3; i++) await pass();
    expect((await events("MoveStarted")).length).toBe(moves);

    nats.startServer(2);
    const resumed = await waitFor(
      "Holding=False once js-2 is back",
      async () => {
        await pass();
        const b = await balancer();
        return holding(b)?.status === "False" ? b : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(holding(resumed)?.reason).toBe("Settled");
  }, 240_000);

  it("pauses while the NatsCluster of its servers is mid-rollout, and resumes once it is Settled", async () => {
    // The move the last pass made settles first, so the pause is the rollout's alone.
    await waitFor("no move pending", async () => {
      await pass();
      return ((await balancer()).status?.pending ?? []).length === 0;
    });
    await leadAllFrom("js-0");
    const created = await create(
      env.kube,
      resource("cluster.nats-operator.io/v1beta1", "NatsCluster", ns, "js", { version: "2.15.2", replicas: 3 }),
    );
    const settled = async (status: "True" | "False") => {
      const current = (await env.kube.get<KubeObject>({
        apiVersion: created.apiVersion,
        kind: created.kind,
        namespace: ns,
        name: "js",
      })) as KubeObject;
      await env.kube.applyStatus(
        {
          apiVersion: created.apiVersion,
          kind: created.kind,
          metadata: current.metadata,
          status: {
            servers: nats.names.map((name) => ({ name })),
            conditions: [
              {
                type: "Settled",
                status,
                reason: status === "True" ? "Settled" : "Unsettled",
                message: status === "True" ? "every server is current" : "js-1 is restarting",
                lastTransitionTime: new Date().toISOString(),
              },
            ],
          },
        },
        "test",
      );
    };
    await settled("False");
    const moves = (await events("MoveStarted")).length;
    for (let i = 0; i < 3; i++) await pass();
    const paused = await balancer();
    expect(holding(paused)).toMatchObject({
      status: "True",
      reason: "Unsettled",
      message: `NatsCluster ${ns}/js is not Settled (Unsettled): js-1 is restarting`,
    });
    expect((await events("MoveStarted")).length).toBe(moves);

    await settled("True");
    await waitFor(
      "a move once the NatsCluster is Settled",
      async () => {
        await pass();
        return (await events("MoveStarted")).length > moves;
      },
      { timeoutMs: 60_000 },
    );
  }, 120_000);

  it("hands the move lease on only after it lapses, when its holder goes mid-move", async () => {
    await leadAllFrom("js-0");
    await waitFor("a move pending", async () => {
      await pass();
      return ((await balancer()).status?.pending ?? []).length === 1;
    });
    const lease = await waitFor("the lease held by even", async () => {
      const leases = await env.kube.list<KubeObject & { spec?: { holderIdentity?: string; renewTime?: string } }>({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        namespace: ns,
      });
      return leases.find((l) => l.spec?.holderIdentity === `NatsSystemBalancer ${ns}/even`);
    });
    const lapses = Date.parse(lease.spec?.renewTime ?? "") + 60_000;

    await create(
      env.kube,
      resource(JS, "NatsSystemBalancer", ns, "second", { connectionRef: { name: "system" }, interval: "1s" }),
    );
    await pass("second");
    expect((await balancer("second")).status?.conditions?.find((c) => c.type === "Ready")?.reason).toBe(
      "DuplicateBalancer",
    );
    // The holder goes mid-move: its passes stop, its lease stays until it lapses.
    await env.kube.delete({ apiVersion: JS, kind: "NatsSystemBalancer", namespace: ns, name: "even" });
    await pass("second");
    expect(holding(await balancer("second"))).toMatchObject({ status: "True", reason: "MoveLeaseHeld" });

    await waitFor(
      "a move by the second balancer",
      async () => {
        await pass("second");
        const started = await events("MoveStarted", "second");
        if (started.length === 0) return new Promise<false>((r) => setTimeout(() => r(false), 1_000));
        expect(Date.now()).toBeGreaterThanOrEqual(lapses);
        return true;
      },
      { timeoutMs: 120_000 },
    );
  }, 180_000);

  it("with moves.placement, moves copies off the server holding the most, one at a time", async () => {
    // Nine R1 streams on js-0: made R3, led from js-0, then cut down to the leader's copy (the
    // server would place a new R1 stream on the emptiest server).
    const copies = Array.from({ length: 9 }, (_, i) => `COPY${i + 1}`);
    for (const name of copies) {
      const config = { name, subjects: [`${name.toLowerCase()}.>`], num_replicas: 3 };
      await createStream(client, config);
      await waitFor(`${name} led by js-0`, async () => {
        if ((await leaderOf(name)) === "js-0") return true;
        await js(client, `STREAM.LEADER.STEPDOWN.${name}`, { placement: { preferred: "js-0" } });
        await new Promise((r) => setTimeout(r, 300));
        return (await leaderOf(name)) === "js-0" ? true : undefined;
      });
      await js(client, `STREAM.UPDATE.${name}`, { ...config, num_replicas: 1 });
    }
    const held = async (server: string) => {
      let n = 0;
      for (const name of copies)
        if ((await js<StreamInfo>(client, `STREAM.INFO.${name}`)).cluster?.leader === server) n++;
      return n;
    };
    await waitFor("nine copies on js-0 alone", async () => (await held("js-0")) === 9);
    await env.kube.patch(
      { apiVersion: JS, kind: "NatsSystemBalancer", namespace: ns, name: "second" },
      { spec: { moves: { placement: true } } },
      "merge",
    );
    const pendingSeen: number[] = [];
    const evened = await waitFor(
      "replica skew evened by placement moves",
      async () => {
        await pass("second");
        const b = await balancer("second");
        pendingSeen.push(b.status?.pending?.length ?? 0);
        const done = (await events("MoveDone", "second")).filter((n) => n.startsWith("copy of stream"));
        return done.length >= 6 && (b.status?.skew?.replicas ?? 99) <= 1 && (b.status?.pending ?? []).length === 0
          ? b
          : new Promise<false>((r) => setTimeout(() => r(false), 500));
      },
      { timeoutMs: 120_000 },
    );
    expect(Math.max(...pendingSeen)).toBe(1);
    expect(evened.status?.capabilities?.placement).toBe(true);
    // 9 R3 ORDERS copies on every server plus 9 R1 COPY copies: 36 copies, so skew 1 is 12/12/12,
    // each server holding three COPY streams (at least six moves off js-0).
    for (const server of nats.names) expect(await held(server)).toBe(3);
    expect(evened.status?.placement).toMatchObject({ copies: 36, servers: 3 });
    expect((await events("MoveStarted", "second")).filter((n) => n.startsWith("moving the copy of stream"))[0]).toMatch(
      /^moving the copy of stream COPY\d in account APP off js-0$/,
    );
  }, 240_000);
});
