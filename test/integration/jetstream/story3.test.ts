// harness: real node
// Story 3: JetStream on a NATS cluster the operator did not deploy. Streams
// that already exist are adopted (Adopt, AdoptOrCreate) or left alone
// (Never → Terminal/ExistsUnowned, then Retry), plus a KV bucket, an object
// store and consumers by stream name and by streamRef.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import { Objm } from "@nats-io/obj";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startNatsCluster, js, type NatsCluster, createStream } from "./support/nats-cluster.ts";
import { conditionsOf, CORE, create, JS, read, resource, waitForCondition } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let nats: NatsCluster;
let client: NatsConnection;
let driver: RunningOperator;
let ns: string;

const ledgerMessage =
  "stream LEDGER exists and carries no ownership marker; set spec.adoptionPolicy to Adopt or AdoptOrCreate to take it over";

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 3 });
  client = await nats.client();
  // The streams someone else made before the team declared them.
  await createStream(client, {
    name: "PAYMENTS",
    subjects: ["payments.>"],
    storage: "file",
    num_replicas: 3,
    max_age: 168 * 3600e9,
  });
  await createStream(client, { name: "LEDGER", subjects: ["ledger.>"], num_replicas: 3 });
  ns = await env.namespace("payments");
  driver = await startOperator(env.transport, syncStreamOnly(env.kube, [ns]));
  await create(env.kube, resource(CORE, "NatsConnection", ns, "shared-payments", { servers: nats.urls }));
}, 180_000);

afterAll(async () => {
  await driver?.stop();
  await client?.close();
  await nats?.stop();
  await env?.stop();
}, 60_000);

const key = (kind: string, name: string) => ({ apiVersion: JS, kind, namespace: ns, name });
const streamInfo = (name: string) =>
  js<{ config?: Record<string, unknown>; error?: unknown }>(client, `STREAM.INFO.${name}`);
const conn = { connectionRef: { name: "shared-payments" } };

describe("story 3: streams on a cluster someone else runs", () => {
  it("Adopt takes PAYMENTS over, writes its config into spec and keeps the server config", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "payments", { ...conn, adoptionPolicy: "Adopt", name: "PAYMENTS" }),
    );
    const payments = await waitFor("spec written back and synced", async () => {
      const s = await waitForCondition(env.kube, key("NatsStream", "payments"), "Ready", "True", "Synced");
      return s.metadata.generation === 2 ? s : undefined;
    });
    expect(payments.spec).toMatchObject({
      connectionRef: { name: "shared-payments" },
      adoptionPolicy: "Adopt",
      name: "PAYMENTS",
      subjects: ["payments.>"],
      storage: "File",
      replicas: 3,
      retention: "Limits",
      maxAge: "168h0m0s",
      maxBytes: "-1",
      discard: "Old",
    });
    expect(conditionsOf(payments)).toEqual(
      expect.arrayContaining(["Ready=True/Synced", "Adopted=True/FoundUnowned", "Synced=True/MatchesSpec"]),
    );
    expect(payments.status?.ownership).toEqual({ origin: "Adopted", uid: payments.metadata.uid });
    const config = (await streamInfo("PAYMENTS")).config ?? {};
    expect(config.max_age).toBe(168 * 3600e9);
    expect(config.metadata).toMatchObject({
      "jetstream.nats-operator.io/origin": "Adopted",
      "jetstream.nats-operator.io/owner": payments.metadata.uid,
    });
  });

  it("AdoptOrCreate creates REFUNDS from spec, then writes the omitted fields back into spec", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "refunds", {
        ...conn,
        adoptionPolicy: "AdoptOrCreate",
        name: "REFUNDS",
        subjects: ["refunds.>"],
        storage: "File",
        replicas: 3,
        maxAge: "2160h",
      }),
    );
    const refunds = await waitFor("late-initialised and synced", async () => {
      const s = await waitForCondition(env.kube, key("NatsStream", "refunds"), "Ready", "True", "Synced");
      return s.metadata.generation === 2 ? s : undefined;
    });
    expect(refunds.spec).toMatchObject({
      maxAge: "2160h",
      retention: "Limits",
      discard: "Old",
      maxBytes: "-1",
      maxMsgs: -1,
    });
    expect(refunds.status?.ownership).toMatchObject({ origin: "Created" });
    expect((await streamInfo("REFUNDS")).config).toMatchObject({
      subjects: ["refunds.>"],
      num_replicas: 3,
      max_age: 2160 * 3600e9,
    });
  });

  it("Never leaves the unowned LEDGER alone: Terminal/ExistsUnowned with the documented message and a next check", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "ledger", {
        ...conn,
        terminalPolicy: "Retry",
        name: "LEDGER",
        subjects: ["ledger.>"],
        replicas: 3,
      }),
    );
    const ledger = await waitForCondition(env.kube, key("NatsStream", "ledger"), "Terminal", "True", "ExistsUnowned");
    expect(conditionsOf(ledger)).toEqual(["Ready=False/Terminal", "Terminal=True/ExistsUnowned"]);
    expect(ledger.status?.conditions?.find((c) => c.type === "Terminal")?.message).toBe(ledgerMessage);
    expect(ledger.status?.observedGeneration).toBe(1);
    expect(ledger.status?.nextCheckTime).toEqual(expect.any(String));
    expect(
      ((await streamInfo("LEDGER")).config?.metadata as Record<string, string>)["jetstream.nats-operator.io/owner"],
    ).toBeUndefined();
  });

  it("Adopt of a stream that does not exist waits (Adopted=False/NotFound) and never creates it", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "ghost", { ...conn, adoptionPolicy: "Adopt", name: "GHOST" }),
    );
    const ghost = await waitForCondition(env.kube, key("NatsStream", "ghost"), "Adopted", "False", "NotFound");
    expect(conditionsOf(ghost)).toEqual(["Ready=False/NotFound", "Adopted=False/NotFound"]);
    expect((await streamInfo("GHOST")).error).toBeDefined();
  });
});

describe("story 3: a key-value bucket and an object store", () => {
  it("creates the KV bucket sessions, usable by a NATS client", async () => {
    await create(
      env.kube,
      resource(JS, "NatsKeyValue", ns, "sessions", {
        ...conn,
        adoptionPolicy: "AdoptOrCreate",
        deletionPolicy: "Retain",
        name: "sessions",
        history: 5,
        ttl: "24h",
        maxValueSize: "64Ki",
        maxBytes: "1Gi",
        storage: "File",
        replicas: 3,
      }),
    );
    const kv = await waitForCondition(env.kube, key("NatsKeyValue", "sessions"), "Ready", "True", "Synced");
    expect(conditionsOf(kv)).toContain("Synced=True/MatchesSpec");
    expect((await streamInfo("KV_sessions")).config).toMatchObject({
      max_msgs_per_subject: 5,
      max_age: 24 * 3600e9,
      max_msg_size: 65536,
      max_bytes: 2 ** 30,
      num_replicas: 3,
    });
    const bucket = await new Kvm(client).open("sessions");
    await bucket.put("user.1", "hello");
    expect((await bucket.get("user.1"))?.string()).toBe("hello");
  });

  it("creates the object store receipts, usable by a NATS client", async () => {
    await create(
      env.kube,
      resource(JS, "NatsObjectStore", ns, "receipts", {
        ...conn,
        name: "receipts",
        ttl: "2160h",
        maxBytes: "50Gi",
        storage: "File",
        replicas: 3,
        compression: true,
      }),
    );
    await waitForCondition(env.kube, key("NatsObjectStore", "receipts"), "Ready", "True", "Synced");
    expect((await streamInfo("OBJ_receipts")).config).toMatchObject({
      compression: "s2",
      num_replicas: 3,
      max_bytes: 50 * 2 ** 30,
    });
    const store = await new Objm(client).open("receipts");
    await store.putBlob({ name: "r1" }, new TextEncoder().encode("receipt"));
    expect(new TextDecoder().decode((await store.getBlob("r1")) ?? new Uint8Array())).toBe("receipt");
  });

  it("puts a bucket's stream back when it is edited behind its back", async () => {
    const config = (await streamInfo("KV_sessions")).config ?? {};
    await js(client, "STREAM.UPDATE.KV_sessions", { ...config, max_msgs_per_subject: 2 });
    await driver.tick(ns);
    expect((await streamInfo("KV_sessions")).config?.max_msgs_per_subject).toBe(5);
    expect(conditionsOf(await read(env.kube, JS, "NatsKeyValue", ns, "sessions"))).toContain(
      "Synced=False/DriftCorrected",
    );
  });

  it("refuses an OBJ_ stream that is not an object store: Terminal/NotABucket, stream untouched", async () => {
    await createStream(client, { name: "OBJ_fake", subjects: ["fake.>"] });
    await create(
      env.kube,
      resource(JS, "NatsObjectStore", ns, "fake", { ...conn, adoptionPolicy: "AdoptOrCreate", name: "fake" }),
    );
    await waitForCondition(env.kube, key("NatsObjectStore", "fake"), "Terminal", "True", "NotABucket");
    expect((await streamInfo("OBJ_fake")).config?.subjects).toEqual(["fake.>"]);
  });
});

describe("story 3: consumers", () => {
  it("creates ledger-audit on the stream LEDGER, which has no resource", async () => {
    await create(
      env.kube,
      resource(JS, "NatsConsumer", ns, "ledger-audit", {
        ...conn,
        stream: "LEDGER",
        name: "audit",
        deliverPolicy: "All",
        ackPolicy: "Explicit",
      }),
    );
    await waitForCondition(env.kube, key("NatsConsumer", "ledger-audit"), "Ready", "True", "Synced");
    const info = await js<{ config: Record<string, unknown> }>(client, "CONSUMER.INFO.LEDGER.audit");
    expect(info.config).toMatchObject({ durable_name: "audit", deliver_policy: "all", ack_policy: "explicit" });
  });

  it("creates payments-settlement through streamRef with the stream's connection", async () => {
    await create(
      env.kube,
      resource(JS, "NatsConsumer", ns, "payments-settlement", {
        streamRef: { name: "payments" },
        adoptionPolicy: "AdoptOrCreate",
        name: "settlement",
        deliverPolicy: "All",
        ackPolicy: "Explicit",
        ackWait: "30s",
        maxDeliver: 10,
        filterSubjects: ["payments.settled.>"],
      }),
    );
    const consumer = await waitForCondition(
      env.kube,
      key("NatsConsumer", "payments-settlement"),
      "Ready",
      "True",
      "Synced",
    );
    expect((consumer.status?.server as { created?: string }).created).toEqual(expect.any(String));
    // A new R3 consumer may have no leader yet: the settle schedule re-reads it until it has one.
    await waitFor("consumer leader shown", async () => {
      await driver.tick(ns, "settle");
      const c = await read(env.kube, JS, "NatsConsumer", ns, "payments-settlement");
      const server = c?.status?.server as { leader?: string; replicas?: { current: boolean }[] } | undefined;
      return Boolean(server?.leader) && (server?.replicas ?? []).every((r) => r.current);
    });
    await driver.tick(ns, "settle");
    await waitFor(
      "settle schedule dropped once settled",
      async () =>
        (await env.kube.get({
          apiVersion: "sources.knative.dev/v1",
          kind: "PingSource",
          namespace: ns,
          name: "sync-stream-settle",
        })) === undefined,
    );
    const info = await js<{ config: Record<string, unknown> }>(client, "CONSUMER.INFO.PAYMENTS.settlement");
    expect(info.config).toMatchObject({ ack_wait: 30e9, max_deliver: 10, filter_subjects: ["payments.settled.>"] });
  });

  it("puts a consumer back when it is edited behind its back", async () => {
    const info = await js<{ config: Record<string, unknown> }>(client, "CONSUMER.INFO.PAYMENTS.settlement");
    await js(client, "CONSUMER.CREATE.PAYMENTS.settlement", {
      stream_name: "PAYMENTS",
      config: { ...info.config, max_deliver: 3 },
      action: "update",
    });
    await driver.tick(ns);
    const after = await js<{ config: Record<string, unknown> }>(client, "CONSUMER.INFO.PAYMENTS.settlement");
    expect(after.config.max_deliver).toBe(10);
  });

  it("waits with StreamNotReady while its streamRef stream is not Ready, and follows once it is", async () => {
    await create(
      env.kube,
      resource(JS, "NatsConsumer", ns, "late", {
        streamRef: { name: "late-stream" },
        name: "late",
        ackPolicy: "Explicit",
      }),
    );
    await waitForCondition(env.kube, key("NatsConsumer", "late"), "Ready", "False", "StreamNotFound");
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "late-stream", { ...conn, name: "LATE", subjects: ["late.>"] }),
    );
    await waitForCondition(env.kube, key("NatsStream", "late-stream"), "Ready", "True");
    await driver.tick(ns);
    await waitForCondition(env.kube, key("NatsConsumer", "late"), "Ready", "True", "Synced");
  });

  it("recreates a consumer to change an immutable field when recreateOnImmutableChange is set", async () => {
    await env.kube.patch(
      key("NatsConsumer", "ledger-audit"),
      { spec: { recreateOnImmutableChange: true, deliverPolicy: "New" } },
      "merge",
    );
    await waitFor("deliver policy changed on the server", async () => {
      const info = await js<{ config?: Record<string, unknown> }>(client, "CONSUMER.INFO.LEDGER.audit");
      return info.config?.deliver_policy === "new";
    });
    await waitForCondition(env.kube, key("NatsConsumer", "ledger-audit"), "Ready", "True", "Synced");
  });

  it("deletes the server consumer when the resource goes (consumers default to Delete)", async () => {
    await env.kube.delete(key("NatsConsumer", "payments-settlement"));
    await waitFor(
      "resource gone",
      async () => (await read(env.kube, JS, "NatsConsumer", ns, "payments-settlement")) === undefined,
    );
    const info = await js<{ error?: { err_code: number } }>(client, "CONSUMER.INFO.PAYMENTS.settlement");
    expect(info.error?.err_code).toBe(10014);
  });
});

describe("story 3: Terminal clears under Retry once the cause is gone, and under Hold only on an edit", () => {
  it("Retry: after the next check past nextCheckTime, with LEDGER's owner gone, the resource creates LEDGER", async () => {
    await js(client, "CONSUMER.DELETE.LEDGER.audit").catch(() => undefined);
    await env.kube.delete(key("NatsConsumer", "ledger-audit"));
    await js(client, "STREAM.DELETE.LEDGER");
    await driver.tick(ns);
    expect(conditionsOf(await read(env.kube, JS, "NatsStream", ns, "ledger"))).toContain("Terminal=True/ExistsUnowned");
    driver.advance(11 * 60_000);
    await driver.tick(ns);
    const ledger = await waitForCondition(env.kube, key("NatsStream", "ledger"), "Ready", "True", "Synced");
    expect(ledger.status?.nextCheckTime).toBeUndefined();
    expect(ledger.status?.ownership).toMatchObject({ origin: "Created" });
  });

  it("Hold: ticks do not clear Terminal; an edit to the resource does", async () => {
    await createStream(client, { name: "AUDIT", subjects: ["audit.>"] });
    await create(env.kube, resource(JS, "NatsStream", ns, "audit", { ...conn, name: "AUDIT", subjects: ["audit.>"] }));
    await waitForCondition(env.kube, key("NatsStream", "audit"), "Terminal", "True", "ExistsUnowned");
    driver.advance(11 * 60_000);
    await driver.tick(ns);
    expect(conditionsOf(await read(env.kube, JS, "NatsStream", ns, "audit"))).toContain("Terminal=True/ExistsUnowned");
    await env.kube.patch(key("NatsStream", "audit"), { spec: { adoptionPolicy: "AdoptOrCreate" } }, "merge");
    const audit = await waitForCondition(env.kube, key("NatsStream", "audit"), "Ready", "True", "Synced");
    expect(conditionsOf(audit)).toContain("Adopted=True/FoundUnowned");
  });
});
