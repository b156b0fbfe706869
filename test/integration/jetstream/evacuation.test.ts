// harness: real node
// Story 11 on real servers: a supercluster of two NATS clusters, east and west, whose servers carry
// `site:east` and `site:west`. Streams and a KV bucket live in east; a NatsClusterEvacuation on a
// system-account connection moves every one of them to the servers tagged `site:west`, a few at a
// time, with the stream published to throughout losing no acknowledged message. A stream whose
// resource pins east is listed and keeps the evacuation from Ready until its owner lets go. An
// evacuation whose target tags a source server carries is refused and moves nothing.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { balance } from "../../../functions/balance/index.ts";
import type { NatsClusterEvacuation } from "../../../functions/balance/evacuation/resource.ts";
import { JETSTREAM_METADATA } from "../../../shared/api/constants/jetstream-metadata.ts";
import { createEventRecorder } from "../../../shared/kube/events.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import type { DispatchDeps } from "../../../shared/runtime/dispatch.ts";
import { createLogger } from "../../../shared/telemetry/logger.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { js, type NatsCluster, type ServerControl, createStream, publishOnce } from "./support/nats-cluster.ts";
import { evacuationPass } from "./support/evacuation-pass.ts";
import { publishThroughout } from "./support/publish-throughout.ts";
import { CORE, create, JS, resource } from "./support/objects.ts";
import { startSupercluster } from "./support/supercluster.ts";
import { waitFor } from "../../harness/wait.ts";

// An application account, and a system account whose user a connection without credentials is.
const ACCOUNTS = [
  "accounts {",
  "  APP { jetstream: enabled, users: [{ user: app, password: app }] }",
  "  SYS { users: [{ user: sys, password: sys }] }",
  "}",
  "system_account: SYS",
  "no_auth_user: sys",
];

const AUDIT = ["AUDIT1", "AUDIT2", "AUDIT3"];
/** Every stream the evacuation moves, the pinned one aside. */
const MOVABLE = ["ORDERS", "EVENTS", "LEGACY", "KV_config", ...AUDIT];

let env: Environment;
let nats: NatsCluster & ServerControl;
/** The application's client, connected to east only, so streams without placement land there. */
let client: NatsConnection;
let ns: string;
let deps: DispatchDeps;

type MetaCluster = { leader?: string; replicas?: { name: string; offline?: boolean }[] };
type StreamInfo = {
  cluster?: { name?: string; replicas?: { name: string }[] };
  state: { messages: number };
  config: { placement?: { cluster?: string } };
};
const info = (stream: string) => js<StreamInfo>(client, `STREAM.INFO.${stream}`);

const pass = (name: string) => evacuationPass(deps, ns, name);

const evacuation = (name: string) =>
  env.kube.get<NatsClusterEvacuation>({ apiVersion: JS, kind: "NatsClusterEvacuation", namespace: ns, name });
const ready = (e: NatsClusterEvacuation | undefined) => e?.status?.conditions?.find((c) => c.type === "Ready");

async function events(reason: string, name: string): Promise<string[]> {
  const list = await env.kube.list<KubeObject & { reason?: string; note?: string; regarding?: { name?: string } }>({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    namespace: ns,
  });
  return list.filter((e) => e.reason === reason && e.regarding?.name === name).map((e) => e.note ?? "");
}

const evacuate = (name: string, tags: string[], from = "east") =>
  create(
    env.kube,
    resource(JS, "NatsClusterEvacuation", ns, name, {
      connectionRef: { name: "system" },
      from: { cluster: from },
      to: { serverTags: tags },
    }),
  );

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startSupercluster(["east", "west"], 2, {
    tags: { east: ["site:east"], west: ["site:west"] },
    config: ACCOUNTS,
    clientOptions: { user: "app", pass: "app" },
  });
  client = await connect({ servers: nats.urls.slice(0, 2), user: "app", pass: "app", timeout: 5_000 });
  ns = await env.namespace("evacuation");
  deps = {
    log: createLogger({ level: "warn", destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    kube: async () => env.kube,
    recorder: async (name) => createEventRecorder(env.kube, `nats-operator.io/${name}`, "test"),
  };
  await create(env.kube, resource(CORE, "NatsConnection", ns, "system", { servers: nats.urls }));

  await createStream(client, { name: "ORDERS", subjects: ["orders.>"], num_replicas: 2 });
  await createStream(client, { name: "EVENTS", subjects: ["events.>"], num_replicas: 1 });
  // More streams than moves in flight at once: the evacuation goes in waves.
  for (const name of AUDIT) await createStream(client, { name, subjects: [`${name.toLowerCase()}.>`] });
  // Made by hand with the source in its config and no resource: it moves, and is listed as stale.
  await createStream(client, {
    name: "LEGACY",
    subjects: ["legacy.>"],
    num_replicas: 1,
    placement: { cluster: "east" },
  });
  // Owned by a NatsStream that pins east: never moved while the resource says so.
  const pinned = await create(
    env.kube,
    resource(JS, "NatsStream", ns, "pinned", {
      connectionRef: { name: "system" },
      name: "PINNED",
      subjects: ["pinned.>"],
      placement: { cluster: "east" },
    }),
  );
  await createStream(client, {
    name: "PINNED",
    subjects: ["pinned.>"],
    num_replicas: 1,
    placement: { cluster: "east" },
    metadata: { [JETSTREAM_METADATA.owner]: pinned.metadata.uid },
  });
  const kv = await new Kvm(client).create("config", { replicas: 2 });
  // As with a stream's first publish (publishOnce): the new bucket's leader takes a moment to show
  // its interest on the client's server, and a put before that meets no responders.
  await waitFor("the config bucket to take its first put", async () => (await kv.put("key.0", "value 0")) > 0);
  for (let i = 1; i < 20; i++) await kv.put(`key.${i}`, `value ${i}`);
  for (let i = 0; i < 200; i++) await publishOnce(client, `events.${i}`, `event ${i}`, `events-${i}`);
  for (let i = 0; i < 50; i++) await publishOnce(client, `legacy.${i}`, `legacy ${i}`, `legacy-${i}`);
  for (const stream of [...MOVABLE, "PINNED"]) expect((await info(stream)).cluster?.name).toBe("east");
}, 240_000);

afterAll(async () => {
  await balance.shutdown?.();
  await client?.close();
  await nats?.stop();
  await env?.stop();
}, 60_000);

describe("story 11: a NatsClusterEvacuation empties a NATS cluster", () => {
  it("refuses target tags a source server carries, moving nothing", async () => {
    await evacuate("inward", ["site:east"]);
    await pass("inward");
    await pass("inward");
    const refused = await evacuation("inward");
    expect(ready(refused)).toMatchObject({ status: "False", reason: "TargetTagsInSource" });
    expect(ready(refused)?.message).toMatch(/^east-0, east-1 of NATS cluster east carry the target tags site:east/);
    expect(refused?.status?.requested ?? []).toEqual([]);
    expect(await events("EvacuationRefused", "inward")).toHaveLength(1);
    expect(await events("MoveStarted", "inward")).toEqual([]);
    expect((await info("ORDERS")).cluster?.name).toBe("east");
    await env.kube.delete({ apiVersion: JS, kind: "NatsClusterEvacuation", namespace: ns, name: "inward" });
    await pass("inward");
    await waitFor("the refused evacuation gone", async () => (await evacuation("inward")) === undefined);
  }, 60_000);

  it("refuses target tags no server carries, moving nothing and looking again", async () => {
    await evacuate("nowhere", ["site:mars"]);
    await pass("nowhere");
    const outcome = await pass("nowhere");
    const refused = await evacuation("nowhere");
    expect(ready(refused)).toMatchObject({
      status: "False",
      reason: "NoTargetServers",
      message: "no server of the NATS system carries the target tags site:mars: no stream could land anywhere",
    });
    expect(refused?.status?.requested ?? []).toEqual([]);
    expect(await events("EvacuationRefused", "nowhere")).toHaveLength(1);
    expect(await events("MoveStarted", "nowhere")).toEqual([]);
    expect(outcome.schedules).toEqual([expect.objectContaining({ poll: { every: "1m" } })]);
    await env.kube.delete({ apiVersion: JS, kind: "NatsClusterEvacuation", namespace: ns, name: "nowhere" });
    await pass("nowhere");
    await waitFor("the refused evacuation gone", async () => (await evacuation("nowhere")) === undefined);
  }, 60_000);

  it("moves every unpinned stream and the KV to the target servers, a few at a time, losing no acknowledged message", async () => {
    const publisher = publishThroughout(client, "orders");
    await evacuate("retire-east", ["site:west"]);
    const inFlight: number[] = [];
    const done = await waitFor(
      "every movable stream off east",
      async () => {
        await pass("retire-east");
        const e = await evacuation("retire-east");
        inFlight.push(e?.status?.inFlight ?? 0);
        return e?.status?.remaining === 0 && ready(e)?.reason === "PinnedObjects" ? e : undefined;
      },
      { timeoutMs: 120_000 },
    );
    const acked = await publisher.stop();

    expect(Math.max(...inFlight)).toBe(4);
    expect(done.status).toMatchObject({
      moved: MOVABLE.length,
      inFlight: 0,
      remaining: 0,
      requested: [],
      pinned: [{ kind: "NatsStream", namespace: ns, name: "pinned" }],
      stalePlacement: [{ account: "APP", name: "LEGACY" }],
    });
    expect(done.status?.conditions?.find((c) => c.type === "Progressing")).toMatchObject({
      status: "False",
      reason: "NothingMovable",
    });
    for (const stream of MOVABLE) {
      const moved = await info(stream);
      expect(moved.cluster?.name).toBe("west");
      expect((moved.cluster?.replicas ?? []).every((r) => r.name.startsWith("west-"))).toBe(true);
    }
    // The config is not rewritten: LEGACY still names east, which is why it is listed.
    expect((await info("LEGACY")).config.placement?.cluster).toBe("east");
    expect((await info("PINNED")).cluster?.name).toBe("east");
    expect((await info("EVENTS")).state.messages).toBe(200);
    expect((await info("LEGACY")).state.messages).toBe(50);
    const kv = await new Kvm(client).open("config");
    expect((await kv.get("key.7"))?.string()).toBe("value 7");
    expect(acked.length).toBeGreaterThan(10);
    for (const seq of acked) {
      const got = await js<{ error?: unknown }>(client, "STREAM.MSG.GET.ORDERS", { seq });
      expect(got.error).toBeUndefined();
    }

    const started = await events("MoveStarted", "retire-east");
    expect(started).toHaveLength(MOVABLE.length);
    expect(started).toContain("moving stream ORDERS of account APP off NATS cluster east to servers tagged site:west");
    expect(await events("MoveDone", "retire-east")).toHaveLength(MOVABLE.length);
    expect(await events("MoveRefused", "retire-east")).toEqual([]);
    // Still watching, for the owner of the pinned stream.
    expect(
      await env.kube.get({
        apiVersion: "sources.knative.dev/v1",
        kind: "PingSource",
        namespace: ns,
        name: "retire-east-evacuation",
      }),
    ).toBeDefined();
  }, 180_000);

  it("finishes once the owner lets go of the pinned stream, then stops polling", async () => {
    await env.kube.delete({ apiVersion: JS, kind: "NatsStream", namespace: ns, name: "pinned" });
    const evacuated = await waitFor(
      "Ready=True/Evacuated",
      async () => {
        await pass("retire-east");
        const e = await evacuation("retire-east");
        return ready(e)?.reason === "Evacuated" ? e : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(evacuated.status).toMatchObject({
      moved: MOVABLE.length + 1,
      remaining: 0,
      inFlight: 0,
      pinned: [],
      requested: [],
    });
    expect((await info("PINNED")).cluster?.name).toBe("west");
    expect(
      await env.kube.get({
        apiVersion: "sources.knative.dev/v1",
        kind: "PingSource",
        namespace: ns,
        name: "retire-east-evacuation",
      }),
    ).toBeUndefined();
  }, 90_000);

  it("lets a finished evacuation go when deleted, cancelling nothing", async () => {
    await env.kube.delete({ apiVersion: JS, kind: "NatsClusterEvacuation", namespace: ns, name: "retire-east" });
    await pass("retire-east");
    await waitFor("the evacuation gone", async () => (await evacuation("retire-east")) === undefined);
    expect(await events("MoveCancelled", "retire-east")).toEqual([]);
  }, 30_000);

  it("cancels the moves it requested when deleted before Ready", async () => {
    // 20 MB to copy: the move is still under way when the evacuation goes.
    await createStream(client, {
      name: "BULK",
      subjects: ["bulk.>"],
      num_replicas: 2,
      placement: { cluster: "west" },
    });
    const jsc = jetstream(client);
    const chunk = new Uint8Array(100_000);
    // The new stream's interest reaches east over the gateway a moment after it is created.
    await waitFor("BULK takes messages", async () => (await jsc.publish("bulk.0", chunk, { msgID: "bulk-0" })).seq);
    await Promise.all(Array.from({ length: 199 }, (_, i) => jsc.publish(`bulk.${i + 1}`, chunk)));
    await evacuate("back-east", ["site:east"], "west");
    await pass("back-east");
    const requested = (await evacuation("back-east"))?.status?.requested ?? [];
    expect(requested.map((r) => r.stream)).toContain("BULK");
    await env.kube.delete({ apiVersion: JS, kind: "NatsClusterEvacuation", namespace: ns, name: "back-east" });
    await pass("back-east");
    await waitFor("the evacuation gone", async () => (await evacuation("back-east")) === undefined);
    const cancelled = await events("MoveCancelled", "back-east");
    expect(cancelled).toContain("cancelled the move of stream BULK of account APP off NATS cluster west");
    // A cancelled move goes back where it was, whole.
    await waitFor(
      "BULK back on west alone",
      async () => {
        const bulk = await info("BULK");
        return bulk.cluster?.name === "west" && (bulk.cluster.replicas ?? []).every((r) => r.name.startsWith("west-"));
      },
      { timeoutMs: 60_000 },
    );
    expect((await info("BULK")).state.messages).toBe(200);
  }, 120_000);

  it("moves nothing while a server is down, goes on once it is back, and reports the move it is refused", async () => {
    // Its own placement tags name west: no server carries both those and the target tags.
    await createStream(client, {
      name: "TAGGED",
      subjects: ["tagged.>"],
      num_replicas: 1,
      placement: { tags: ["site:west"] },
    });
    // west-1 stops; the evacuation starts only once the meta leader counts it offline.
    await nats.stopServer(3);
    await waitFor(
      "west-1 offline to the meta leader",
      async () => {
        const sys = await connect({ servers: nats.urls.slice(0, 2), timeout: 5_000 });
        try {
          const replies: { server?: { name?: string }; data?: { meta_cluster?: MetaCluster } }[] = [];
          const inbox = `_INBOX.test.${Date.now()}`;
          const sub = sys.subscribe(inbox, { callback: (_e, m) => void replies.push(m.json()) });
          sys.publish("$SYS.REQ.SERVER.PING.JSZ", "{}", { reply: inbox });
          await new Promise((r) => setTimeout(r, 1_000));
          sub.unsubscribe();
          const leader = replies.find((r) => r.server?.name && r.data?.meta_cluster?.leader === r.server.name);
          return leader?.data?.meta_cluster?.replicas?.some((p) => p.name === "west-1" && p.offline) ?? false;
        } finally {
          await sys.close();
        }
      },
      { timeoutMs: 60_000 },
    );
    await evacuate("while-down", ["site:east"], "west");
    for (let i = 0; i < 3; i++) await pass("while-down");
    const held = await evacuation("while-down");
    expect(ready(held)).toMatchObject({ status: "False", reason: "ServersDown" });
    expect(ready(held)?.message).toContain("west-1 offline");
    expect(held?.status?.requested ?? []).toEqual([]);
    expect(await events("MoveStarted", "while-down")).toEqual([]);

    nats.startServer(3);
    await waitFor(
      "moves once west-1 is back",
      async () => {
        await pass("while-down");
        return (await events("MoveStarted", "while-down")).length > 0;
      },
      { timeoutMs: 90_000 },
    );
    expect(ready(await evacuation("while-down"))?.reason).not.toBe("ServersDown");
    const refused = await waitFor(
      "the TAGGED move refused",
      async () => {
        const note = (await events("MoveRefused", "while-down")).find((n) => n.startsWith("stream TAGGED"));
        if (note) return note;
        await pass("while-down");
        return undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(refused).toMatch(
      /^stream TAGGED of account APP was not moved off NATS cluster west: the server refused it: no suitable peers/,
    );
    expect((await info("TAGGED")).cluster?.name).toBe("west");
  }, 180_000);
});
