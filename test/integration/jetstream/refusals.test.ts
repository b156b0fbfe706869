// harness: real node
// Bad input: what the server refuses as invalid goes Terminal with the
// server's own message and is not retried; what it cannot place is retried
// with backoff, never in a hot loop. Deliveries are counted.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { waitFor } from "../../harness/wait.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startNatsCluster, js, type NatsCluster, createStream } from "./support/nats-cluster.ts";
import { conditionsOf, CORE, create, JS, read, resource, waitForCondition } from "./support/objects.ts";

let env: Environment;
let nats: NatsCluster;
let client: NatsConnection;
let driver: RunningOperator;
let ns: string;

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 3 });
  client = await nats.client();
  ns = await env.namespace("refusals");
  driver = await startOperator(env.transport, syncStreamOnly(env.kube, [ns]));
  await create(env.kube, resource(CORE, "NatsConnection", ns, "main", { servers: nats.urls }));
  await createStream(client, { name: "TAKEN", subjects: ["taken.>"] });
}, 180_000);

afterAll(async () => {
  await driver?.stop();
  await client?.close();
  await nats?.stop();
  await env?.stop();
}, 60_000);

const key = (kind: string, name: string) => ({ apiVersion: JS, kind, namespace: ns, name });
const conn = { connectionRef: { name: "main" } };

describe("configs the server refuses", () => {
  it("a stream whose subjects overlap another stream: Terminal/Rejected with the server's message, handled once", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "overlap", { ...conn, name: "OVERLAP", subjects: ["taken.>"] }),
    );
    const s = await waitForCondition(env.kube, key("NatsStream", "overlap"), "Terminal", "True", "Rejected");
    expect(conditionsOf(s)).toEqual(["Ready=False/Terminal", "Terminal=True/Rejected"]);
    expect(s.status?.conditions?.find((c) => c.type === "Terminal")?.message).toBe(
      "stream OVERLAP: subjects overlap with an existing stream",
    );
    await driver.settle(3_000);
    const handled = driver.handled("NatsStream/overlap");
    // The refusal is never retried. A loaded machine may time out a request before the server
    // answers, and that transient failure is retried with backoff, so it is not counted here.
    const transient = handled.filter((d) => d.outcome.kind === "retry" || d.outcome.kind === "conflict");
    expect(transient.filter((d) => "message" in d.outcome && d.outcome.message.includes("overlap"))).toEqual([]);
    // the add and the update the finalizer makes; nothing after the Terminal status
    expect(handled.length - transient.length).toBeLessThanOrEqual(2);
  });

  it("a consumer config the server refuses (more backoff steps than deliveries) goes Terminal/Rejected", async () => {
    await create(
      env.kube,
      resource(JS, "NatsConsumer", ns, "bad-backoff", {
        ...conn,
        stream: "TAKEN",
        name: "bad",
        ackPolicy: "Explicit",
        backOff: ["1s", "2s", "3s"],
        maxDeliver: 2,
      }),
    );
    const c = await waitForCondition(env.kube, key("NatsConsumer", "bad-backoff"), "Terminal", "True", "Rejected");
    expect(c.status?.conditions?.find((x) => x.type === "Terminal")?.message).toBe(
      "consumer TAKEN/bad: max deliver is required to be > length of backoff values",
    );
  });

  it("an edit the server refuses on update (subjects now overlapping) goes Terminal and clears with the next edit", async () => {
    await create(env.kube, resource(JS, "NatsStream", ns, "mover", { ...conn, name: "MOVER", subjects: ["mover.>"] }));
    await waitForCondition(env.kube, key("NatsStream", "mover"), "Ready", "True", "Synced");
    await env.kube.patch(key("NatsStream", "mover"), { spec: { subjects: ["taken.>"] } }, "merge");
    await waitForCondition(env.kube, key("NatsStream", "mover"), "Terminal", "True", "Rejected");
    await env.kube.patch(key("NatsStream", "mover"), { spec: { subjects: ["mover.>", "moved.>"] } }, "merge");
    await waitForCondition(env.kube, key("NatsStream", "mover"), "Ready", "True", "Synced");
    expect((await js<{ config: { subjects: string[] } }>(client, "STREAM.INFO.MOVER")).config.subjects).toEqual([
      "mover.>",
      "moved.>",
    ]);
  });

  it("adopting a consumer whose immutable fields differ from spec goes Terminal/ImmutableField and leaves it alone", async () => {
    await js(client, "CONSUMER.CREATE.TAKEN.legacy", {
      stream_name: "TAKEN",
      config: { durable_name: "legacy", name: "legacy", deliver_policy: "new", ack_policy: "explicit" },
      action: "create",
    });
    await create(
      env.kube,
      resource(JS, "NatsConsumer", ns, "legacy", {
        ...conn,
        stream: "TAKEN",
        name: "legacy",
        adoptionPolicy: "AdoptOrCreate",
        deliverPolicy: "All",
        ackPolicy: "Explicit",
      }),
    );
    const c = await waitForCondition(env.kube, key("NatsConsumer", "legacy"), "Terminal", "True", "ImmutableField");
    expect(c.status?.conditions?.find((x) => x.type === "Terminal")?.message).toContain(
      "cannot change deliver_policy in place",
    );
    const info = await js<{ config: Record<string, unknown> }>(client, "CONSUMER.INFO.TAKEN.legacy");
    expect(info.config.deliver_policy).toBe("new");
    expect(
      (info.config.metadata as Record<string, string> | undefined)?.["jetstream.nats-operator.io/owner"],
    ).toBeUndefined();
  });

  it("a value the spec cannot express on the wire goes Terminal/Rejected without asking the server", async () => {
    await create(env.kube, resource(JS, "NatsKeyValue", ns, "dotted", { ...conn, name: "has.dot" }));
    const kv = await waitForCondition(env.kube, key("NatsKeyValue", "dotted"), "Terminal", "True", "Rejected");
    expect(kv.status?.conditions?.find((c) => c.type === "Terminal")?.message).toContain("invalid bucket name");
  });
});

describe("configs the server cannot place", () => {
  it("five replicas on three servers: SyncFailed, retried with backoff, not in a hot loop", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "wide", { ...conn, name: "WIDE", subjects: ["wide.>"], replicas: 5 }),
    );
    const s = await waitForCondition(env.kube, key("NatsStream", "wide"), "Ready", "False", "SyncFailed");
    expect(conditionsOf(s)).toEqual(["Ready=False/SyncFailed", "Synced=False/SyncFailed"]);
    const retries = () => driver.handled("NatsStream/wide").filter((d) => d.outcome.kind === "retry");
    const seen = await waitFor(
      "retries spanning six seconds",
      () => {
        const r = retries();
        const first = r[0]?.at ?? Date.now();
        return (r.at(-1)?.at ?? first) - first >= 6_000 ? r : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // Backoff 0.5, 1, 2, 4 s: at most five attempts of one event fit in six seconds (a loaded machine
    // only spreads them); the add and the finalizer's update are two events.
    const first = seen[0]?.at ?? 0;
    expect(seen.filter((d) => d.at - first <= 6_000).length).toBeLessThanOrEqual(10);
    expect((await read(env.kube, JS, "NatsStream", ns, "wide"))?.status?.conditions?.[0]?.message).toBe(
      "no suitable peers for placement",
    );
  }, 90_000);
});
