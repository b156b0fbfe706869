// The object reconcile's main flow without a NATS server: decide from Observed fixtures, and
// whole passes through the runtime with memoryKube on the API side and a fake JetStream.
import { describe, expect, it } from "@jest/globals";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { ErrCodes, NatsApiError } from "../../../shared/nats/index.ts";
import { type Cause, newDelivery, reconcileObject } from "../../../shared/runtime/index.ts";
import { createLogger } from "../../../shared/telemetry/index.ts";
import { finalizer } from "../context.ts";
import type { Wire } from "../config/fields.ts";
import { markerOriginKey, markerOwnerKey } from "../config/marker.ts";
import type { AccountRead } from "../jetstream/account.ts";
import type { JetStreamServer } from "../jetstream/server.ts";
import type { Target } from "../targets/kinds.ts";
import { consumerTarget } from "../targets/consumer-target.ts";
import { isSpecProblem } from "../targets/kinds.ts";
import { keyValueTarget } from "../targets/bucket-target.ts";
import { streamTarget } from "../targets/stream-target.ts";
import type { JetStreamObject, ServerObject } from "../types.ts";
import { decide, refused } from "./decide.ts";
import { objectReconciler } from "./reconciler.ts";
import type { Observed } from "./types.ts";
import type { ObjectStatus } from "../plan/status.ts";

const now = new Date("2026-12-06T10:00:00Z");

function stream(spec: Record<string, unknown> = {}, extra: Partial<JetStreamObject["metadata"]> = {}): JetStreamObject {
  return {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name: "orders", namespace: "team-a", uid: "uid-orders", generation: 1, ...extra },
    spec: { connectionRef: { name: "main" }, subjects: ["orders.>"], ...spec },
  } as JetStreamObject;
}

function targetOf(object: JetStreamObject): Target {
  const target = streamTarget(object as never);
  if ("problem" in target) throw new Error(target.problem);
  return target;
}

const ours = (config: Wire, uid = "uid-orders"): ServerObject => ({
  config: { ...config, metadata: { [markerOwnerKey]: uid, [markerOriginKey]: "Created" } },
  info: { config, created: "2026-12-06T09:00:00Z" },
});

const onServer = (object: JetStreamObject, server: ServerObject | undefined): Observed => ({
  object,
  kind: "server",
  target: targetOf(object),
  server,
  foreignOwnerExists: false,
});

describe("deciding from what was observed", () => {
  it("creates a stream the server does not have, marked as ours, and records Created", () => {
    const decision = decide(onServer(stream(), undefined), now);
    expect(decision.kind).toBe("sync");
    if (decision.kind !== "sync") return;
    expect(decision.plan.kind).toBe("create");
    expect(decision.plan.kind === "create" && decision.plan.config.metadata).toMatchObject({
      [markerOwnerKey]: "uid-orders",
    });
    expect(decision.notes).toEqual([["Normal", "Created", "created stream orders"]]);
  });

  it("claims an unmarked stream under Adopt: the server's config goes into spec before the server is touched", () => {
    const object = stream({ adoptionPolicy: "Adopt" });
    const server = { config: { name: "orders", subjects: ["orders.>", "audit.>"] }, info: {} };
    const decision = decide(onServer(object, server), now);
    expect(decision.kind === "sync" && decision.plan.kind).toBe("update");
    expect(decision.kind === "sync" && decision.claim).toMatchObject({ subjects: ["orders.>", "audit.>"] });
    expect(decision.kind === "sync" && decision.fill).toBe(false);
  });

  it("reapplies spec over drift on a stream it owns, and says so", () => {
    const object = stream();
    object.status = { observedGeneration: 1 };
    const target = targetOf(object);
    const drifted = ours({ ...target.desired, subjects: ["elsewhere.>"] });
    const decision = decide(onServer(object, drifted), now);
    expect(decision.kind === "sync" && decision.plan.kind).toBe("update");
    expect(decision.kind === "sync" && decision.notes[0]?.[1]).toBe("DriftCorrected");
  });

  it("goes Terminal Rejected without asking the server when the spec cannot be encoded", () => {
    const decision = decide({ object: stream(), kind: "specProblem", problem: "max_bytes: not a quantity" }, now);
    expect(decision.kind).toBe("finish");
    if (decision.kind !== "finish") return;
    expect(decision.finish.status.conditions?.find((c) => c.type === "Terminal")?.reason).toBe("Rejected");
    expect(decision.finish.notes).toEqual([["Warning", "Rejected", "max_bytes: not a quantity"]]);
  });

  it("turns a refusal of the write into Terminal Rejected, retried after the resync period under Retry", () => {
    const decision = decide(onServer(stream({ terminalPolicy: "Retry" }), undefined), now);
    if (decision.kind !== "sync") throw new Error("expected a write");
    const finish = refused(decision, "replicas > 1 not supported in non-clustered mode");
    expect(finish.answer).toEqual({
      kind: "done",
      summary: "Terminal Rejected: stream orders: replicas > 1 not supported in non-clustered mode",
    });
    expect(finish.status.nextCheckTime).toBe("2026-12-06T10:10:00Z");
  });

  it("reapplies drift that lowered nothing with no Warning", () => {
    const object = stream({ maxBytes: "5Gi", replicas: 3 });
    object.status = { observedGeneration: 1 };
    const target = targetOf(object);
    const drifted = ours({ ...target.desired, max_bytes: 2 * 2 ** 30, num_replicas: 1 });
    const decision = decide(onServer(object, drifted), now);
    expect(decision.kind === "sync" && decision.notes.map(([type, reason]) => `${type} ${reason}`)).toEqual([
      "Normal DriftCorrected",
    ]);
  });

  it("warns before drift repair lowers a stream's limits or replicas, naming what each discards", () => {
    const object = stream({ maxBytes: "1Gi", maxMsgs: 1000, replicas: 1 });
    object.status = { observedGeneration: 1 };
    const target = targetOf(object);
    // Raised behind the operator's back: more room, an age limit spec leaves at the default (none), three copies.
    const drifted = ours({
      ...target.desired,
      max_bytes: 10 * 2 ** 30,
      max_msgs: -1,
      max_age: 3600e9,
      num_replicas: 3,
    });
    const decision = decide(onServer(object, drifted), now);
    if (decision.kind !== "sync") throw new Error("expected a write");
    expect(decision.notes).toEqual([
      [
        "Warning",
        "LimitsLowered",
        "reapplying spec over drift in stream orders: " +
          "lowering maxBytes from 10Gi to 1Gi discards the oldest messages beyond 1Gi; " +
          "lowering maxMsgs from no limit to 1000 discards the oldest messages beyond 1000; " +
          "lowering replicas from 3 to 1 discards 2 copies of every message",
      ],
      [
        "Normal",
        "DriftCorrected",
        "reapplied spec over drift in stream orders (max_msgs, max_bytes, num_replicas, max_age)",
      ],
    ]);
  });

  it("says nothing of a loss for an edit that lowers limits: the user asked for it", () => {
    const object = stream({ maxBytes: "1Gi" }, { generation: 2 });
    object.status = { observedGeneration: 1 };
    const drifted = ours({ ...targetOf(object).desired, max_bytes: 10 * 2 ** 30 });
    const decision = decide(onServer(object, drifted), now);
    expect(decision.kind === "sync" && decision.notes.map(([, reason]) => reason)).toEqual(["Updated"]);
  });

  it("warns that a consumer gone behind the operator's back restarts from the position its spec gives", () => {
    const consumer = {
      apiVersion: "jetstream.nats-operator.io/v1beta1",
      kind: "NatsConsumer",
      metadata: { name: "audit", namespace: "team-a", uid: "uid-audit", generation: 1 },
      spec: { connectionRef: { name: "main" }, stream: "ORDERS", deliverPolicy: "ByStartSequence", optStartSeq: 42 },
      status: { observedGeneration: 1, server: { created: "2026-12-06T09:00:00Z" } },
    } as JetStreamObject;
    const target = consumerTarget(consumer as never, "ORDERS");
    if (isSpecProblem(target)) throw new Error(target.problem);
    const observed: Observed = {
      object: consumer,
      kind: "server",
      target,
      server: undefined,
      foreignOwnerExists: false,
    };
    const decision = decide(observed, now);
    if (decision.kind !== "sync") throw new Error("expected a write");
    expect(decision.plan.kind).toBe("create");
    expect(decision.notes).toEqual([
      [
        "Warning",
        "ConsumerLost",
        "consumer ORDERS/audit is not found on the server; recreated from spec, it restarts from stream sequence 42 " +
          "(deliverPolicy ByStartSequence), and its acknowledgements and redelivery state are lost",
      ],
      ["Normal", "Created", "created consumer ORDERS/audit"],
    ]);
    // A consumer never synced before is simply created.
    const fresh = decide({ ...observed, object: { ...consumer, status: undefined } }, now);
    expect(fresh.kind === "sync" && fresh.notes.map(([, reason]) => reason)).toEqual(["Created"]);
  });

  it("retries a consumer whose stream is not on the server yet", () => {
    const decision = decide({ object: stream(), kind: "streamMissing", target: targetOf(stream()) }, now);
    expect(decision.kind === "finish" && decision.finish.answer.kind).toBe("again");
  });
});

/**
 * A JetStream of streams by name that counts its requests, and refuses what `refuse` says; its
 * `$JS.API.INFO` answers with `apiLevel`.
 */
function fakeJetStream(seed: Record<string, Wire> = {}, refuse?: (config: Wire) => string | undefined, apiLevel = 1) {
  const streams = new Map(Object.entries(seed));
  const requests: string[] = [];
  const reply = (config: Wire): ServerObject => ({ config, info: { config, created: "2026-12-06T10:00:00Z" } });
  const write = async (verb: string, target: Target, config: Wire) => {
    requests.push(`${verb} ${target.stream}`);
    const why = refuse?.(config);
    if (why) throw new NatsApiError(400, ErrCodes.streamInvalidConfig, why);
    streams.set(target.stream, config);
    return reply(config);
  };
  const server: JetStreamServer = {
    async info(target) {
      requests.push(`info ${target.stream}`);
      const config = streams.get(target.stream);
      return config ? { found: true, observed: reply(config) } : { found: false, streamMissing: true };
    },
    create: (target, config) => write("create", target, config),
    update: (target, config) => write("update", target, config),
    async remove(target) {
      requests.push(`delete ${target.stream}`);
      return streams.delete(target.stream);
    },
    async consumers() {
      return [];
    },
    async account() {
      requests.push("account");
      return { apiLevel };
    },
  };
  return { server, streams, requests };
}

const connection: KubeObject & { spec: { servers: string[] } } = {
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsConnection",
  metadata: { name: "main", namespace: "team-a" },
  spec: { servers: ["nats://nats.team-a:4222"] },
};

/** One pass over the stream, as a resync tick delivers it (compared with the server even if fresh). */
async function pass(
  seed: JetStreamObject,
  jetstream: ReturnType<typeof fakeJetStream>,
  cause: Cause = { kind: "tick" },
  at: Date = now,
) {
  // A namespace per world: connections are remembered briefly by namespace and name.
  const namespace = `team-${Math.random().toString(36).slice(2, 8)}`;
  const object = { ...seed, metadata: { ...seed.metadata, namespace } };
  const kube = memoryKube([{ ...connection, metadata: { ...connection.metadata, namespace } }, object]);
  kube.writes.length = 0;
  const events: string[] = [];
  const kind = seed.kind === "NatsKeyValue" ? "NatsKeyValue" : "NatsStream";
  const reconciler = objectReconciler(kind, { connect: async () => ({ ok: true, server: jetstream.server }) });
  const key = { apiVersion: object.apiVersion, kind: object.kind, namespace, name: object.metadata.name };
  const acted = await reconcileObject(reconciler, key, {
    delivery: newDelivery(),
    log: createLogger({ level: "silent" }),
    kube,
    recorder: async () => ({
      record: async (_o, type, reason) => {
        events.push(`${type} ${reason}`);
      },
    }),
    now: () => at,
    cause,
  });
  return { acted, kube, events, after: await kube.get<JetStreamObject>(key) };
}

const withFinalizer = (object: JetStreamObject) => ({
  ...object,
  metadata: { ...object.metadata, finalizers: [finalizer] },
});

describe("a pass through the fakes", () => {
  it("creates the stream with two NATS requests and one status write, then records Created", async () => {
    const jetstream = fakeJetStream();
    const { acted, kube, events, after } = await pass(withFinalizer(stream()), jetstream);
    expect(acted.kind).toBe("done");
    expect(jetstream.requests).toEqual(["info orders", "create orders"]);
    expect(kube.writes).toEqual(["status NatsStream orders"]);
    expect(events).toEqual(["Normal Created"]);
    expect(after?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(after?.status?.ownership).toEqual({ origin: "Created", uid: after?.metadata.uid });
  });

  it("writes nothing on a drift check that finds the stream as it was, and records the check's time hourly", async () => {
    const jetstream = fakeJetStream();
    const created = (await pass(withFinalizer(stream()), jetstream)).after as JetStreamObject;
    const synced = created.status?.lastSyncedTime;
    expect(synced).toBeDefined();
    const later = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    const quiet = await pass(created, jetstream, { kind: "tick" }, later(10));
    expect(quiet.acted.kind).toBe("done");
    expect(quiet.kube.writes).toEqual([]);
    expect(quiet.after?.status?.lastSyncedTime).toBe(synced);
    // An hour after the time recorded, the check records its time again.
    const hourly = await pass(created, jetstream, { kind: "tick" }, later(61));
    expect(hourly.kube.writes).toEqual(["status NatsStream orders"]);
    expect(hourly.after?.status?.lastSyncedTime).toBe(
      later(61)
        .toISOString()
        .replace(/\.\d{3}Z$/, "Z"),
    );
    // Drift is written at once, with the time of the check that found it.
    const config = jetstream.streams.get("orders");
    if (config) jetstream.streams.set("orders", { ...config, max_msgs: 7 });
    const drifted = await pass(created, jetstream, { kind: "tick" }, later(20));
    expect(drifted.kube.writes).toEqual(["status NatsStream orders"]);
    expect(drifted.after?.status?.lastSyncedTime).toBe(
      later(20)
        .toISOString()
        .replace(/\.\d{3}Z$/, "Z"),
    );
  });

  it("adopts an unmarked stream under AdoptOrCreate: marks it and fills spec from it; the status is left to the update that fill makes", async () => {
    const jetstream = fakeJetStream({ orders: { name: "orders", subjects: ["orders.>"], max_msgs: 100 } });
    const { acted, after } = await pass(withFinalizer(stream({ adoptionPolicy: "AdoptOrCreate" })), jetstream);
    expect(jetstream.requests).toEqual(["info orders", "update orders"]);
    expect((jetstream.streams.get("orders")?.metadata as Record<string, string>)[markerOriginKey]).toBe("Adopted");
    expect(after?.spec.maxMsgs).toBe(100);
    // The fill moved the resourceVersion the guarded status write carries: it loses, and answers 409.
    expect(acted.kind).toBe("conflict");
  });

  it("updates a stream of ours whose spec was edited", async () => {
    const object = withFinalizer(stream({ subjects: ["orders.>", "refunds.>"] }, { generation: 2 }));
    object.status = { observedGeneration: 1 };
    const jetstream = fakeJetStream({ orders: ours(targetOf(stream()).desired).config });
    const { events } = await pass(object, jetstream);
    expect(jetstream.requests).toEqual(["info orders", "update orders"]);
    expect(events).toEqual(["Normal Updated"]);
    expect(jetstream.streams.get("orders")?.subjects).toEqual(["orders.>", "refunds.>"]);
  });

  it("records a refusal as Terminal Rejected, with one status write and a Warning", async () => {
    const jetstream = fakeJetStream({}, () => "subjects overlap with an existing stream");
    const { acted, kube, events, after } = await pass(withFinalizer(stream()), jetstream);
    expect(acted).toMatchObject({ kind: "done" });
    expect(kube.writes).toEqual(["status NatsStream orders"]);
    expect(events).toEqual(["Warning Rejected"]);
    expect(after?.status?.conditions?.find((c) => c.type === "Terminal")?.reason).toBe("Rejected");
  });

  it("holds a Terminal object at its generation without reading anything", async () => {
    const object = withFinalizer(stream());
    object.status = {
      observedGeneration: 1,
      conditions: [
        {
          type: "Terminal",
          status: "True",
          reason: "Rejected",
          message: "",
          lastTransitionTime: "2026-12-06T09:00:00Z",
          observedGeneration: 1,
        },
      ],
    };
    const jetstream = fakeJetStream();
    const { acted, kube } = await pass(object, jetstream);
    expect(acted).toMatchObject({ kind: "skipped", reason: "Terminal; held until the resource is edited" });
    expect(jetstream.requests).toEqual([]);
    expect(kube.writes).toEqual([]);
  });

  it("adds the finalizer first on an event, and leaves the work to the update that write makes", async () => {
    const jetstream = fakeJetStream();
    const cameUp = {
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsConnection",
      namespace: "team-a",
      name: "main",
    };
    const { acted, kube } = await pass(stream(), jetstream, { kind: "related", from: cameUp });
    expect(kube.writes).toEqual(["patch NatsStream orders"]);
    expect(acted).toMatchObject({ kind: "done", summary: "finalizer added; the update it makes carries on" });
    expect(jetstream.requests).toEqual([]);
  });

  it("deletes a stream of ours under deletionPolicy Delete, then releases the finalizer", async () => {
    const object = withFinalizer(stream({ deletionPolicy: "Delete" }, { deletionTimestamp: "2026-12-06T09:59:00Z" }));
    const owned = fakeJetStream({ orders: ours(targetOf(stream()).desired).config });
    const { acted, after, events } = await pass(object, owned);
    expect(acted).toMatchObject({ kind: "done", summary: "deleted stream orders" });
    expect(owned.streams.has("orders")).toBe(false);
    expect(events).toEqual(["Normal Deleted"]);
    expect(after?.metadata.finalizers ?? []).toEqual([]);
  });
});

describe("a stream gone on its server", () => {
  /** A NatsStream synced before: status.server shows what the last check saw. */
  const synced = (spec: Record<string, unknown> = {}, generation = 1): JetStreamObject => {
    const object = withFinalizer(stream(spec, { generation }));
    object.status = {
      observedGeneration: 1,
      lastSyncedTime: "2026-12-06T09:50:00Z",
      ownership: { origin: "Created", uid: "uid-orders" },
      server: { created: "2026-12-06T09:00:00Z", messages: 5, bytes: "2Ki", lastSequence: 9 },
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Synced",
          message: "stream orders is in sync",
          lastTransitionTime: "2026-12-06T09:00:00Z",
          observedGeneration: 1,
        },
      ],
    } satisfies ObjectStatus;
    return object;
  };
  const lost = { at: "2026-12-06T10:00:00Z", lastKnown: { messages: 5, bytes: "2Ki", lastSequence: 9 } };

  it("records the loss with what status last showed, says StreamLost, then recreates it", async () => {
    const jetstream = fakeJetStream();
    const { acted, kube, events, after } = await pass(synced(), jetstream);
    expect(acted.kind).toBe("done");
    expect(jetstream.requests).toEqual(["info orders", "create orders"]);
    expect(kube.writes).toEqual(["status NatsStream orders"]);
    expect(events).toEqual(["Warning StreamLost", "Normal Created"]);
    expect(after?.status?.lost).toEqual(lost);
    expect(after?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("names the last known figures in the StreamLost Warning", () => {
    const decision = decide(onServer(synced(), undefined), now);
    if (decision.kind !== "sync") throw new Error("expected a write");
    expect(decision.notes[0]).toEqual([
      "Warning",
      "StreamLost",
      "stream orders, last seen with 5 messages (2Ki, last sequence 9), is not found on the server; " +
        "recreating it empty (spec.onLoss Hold would hold it instead)",
    ]);
  });

  it("under onLoss Hold records the loss and leaves it gone, once, until onLoss is Recreate", async () => {
    const jetstream = fakeJetStream();
    const held = await pass(synced({ onLoss: "Hold" }), jetstream);
    expect(jetstream.requests).toEqual(["info orders"]);
    expect(held.events).toEqual(["Warning StreamLost"]);
    expect(held.acted).toMatchObject({ kind: "done" });
    const status = held.after?.status;
    expect(status?.lost).toEqual(lost);
    const ready = status?.conditions?.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "StreamLost" });
    expect(ready?.message).toBe(
      "stream orders, last seen with 5 messages (2Ki, last sequence 9), is not found on the server; " +
        "held by spec.onLoss Hold: set spec.onLoss to Recreate to recreate it empty",
    );
    expect(status?.conditions?.find((c) => c.type === "Synced")?.reason).toBe("StreamLost");

    // The next check finds it still gone: the same record, no second Warning.
    jetstream.requests.length = 0;
    const later = new Date(now.getTime() + 600_000);
    const again = decide(onServer({ ...synced({ onLoss: "Hold" }), status: status ?? {} }, undefined), later);
    expect(again.kind === "finish" && again.finish.notes).toEqual([]);
    expect(again.kind === "finish" && again.finish.status.lost).toEqual(lost);

    // Released by setting onLoss to Recreate: created, the loss already said.
    const released = { ...synced({ onLoss: "Recreate" }, 2), status: status ?? {} };
    const recreated = await pass(released, jetstream);
    expect(jetstream.requests).toEqual(["info orders", "create orders"]);
    expect(recreated.events).toEqual(["Normal Created"]);
    expect(recreated.after?.status?.lost).toEqual(lost);
    expect(recreated.after?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("announces a second loss after a sync as a new one", () => {
    const object = synced();
    object.status = { ...object.status, lost: { ...lost, at: "2026-12-06T08:00:00Z" } };
    const decision = decide(onServer(object, undefined), now);
    expect(decision.kind === "sync" && decision.notes.map(([, reason]) => reason)).toEqual(["StreamLost", "Created"]);
    expect(decision.kind === "sync" && decision.lost?.record).toEqual(lost);
  });

  it("creates a stream never synced before without a word of loss", () => {
    const decision = decide(onServer(stream(), undefined), now);
    expect(decision.kind === "sync" && decision.lost).toBeUndefined();
  });
});

describe("a key-value bucket's account, asked before the bucket is written (J20)", () => {
  function bucket(spec: Record<string, unknown> = {}): JetStreamObject {
    return {
      apiVersion: "jetstream.nats-operator.io/v1beta1",
      kind: "NatsKeyValue",
      metadata: { name: "sessions", namespace: "team-a", uid: "uid-sessions", generation: 1 },
      spec: { connectionRef: { name: "main" }, ...spec },
    } as JetStreamObject;
  }
  const bucketTarget = (object: JetStreamObject): Target => {
    const target = keyValueTarget(object as never);
    if (isSpecProblem(target)) throw new Error(target.problem);
    return target;
  };
  const observed = (object: JetStreamObject, account: AccountRead): Observed & { kind: "server" } => ({
    object,
    kind: "server",
    target: bucketTarget(object),
    server: undefined,
    foreignOwnerExists: false,
    account,
  });
  const conditionOf = (decision: ReturnType<typeof decide>, type: string) =>
    decision.kind === "finish" ? decision.finish.status.conditions?.find((c) => c.type === type) : undefined;

  it("refuses a limit-marker TTL on a server below JetStream API level 1 as Rejected, before writing, as nats.go does", () => {
    const decision = decide(observed(bucket({ limitMarkerTTL: "5m" }), { ok: true, account: { apiLevel: 0 } }), now);
    expect(decision.kind).toBe("finish");
    expect(conditionOf(decision, "Terminal")).toMatchObject({ status: "True", reason: "Rejected" });
    expect(decision.kind === "finish" && decision.finish.notes[0]?.[2]).toMatch(
      /limit marker TTLs not supported by server: .* the server speaks level 0/,
    );
  });

  it("creates a bucket with a limit-marker TTL once the server speaks JetStream API level 1", () => {
    const decision = decide(observed(bucket({ limitMarkerTTL: "5m" }), { ok: true, account: { apiLevel: 1 } }), now);
    expect(decision.kind === "sync" && decision.plan.kind).toBe("create");
  });

  it("creates a bucket without limit markers whatever API level the server speaks", () => {
    const decision = decide(observed(bucket(), { ok: true, account: { apiLevel: 0 } }), now);
    expect(decision.kind === "sync" && decision.plan.kind).toBe("create");
  });

  it("writes nothing while $JS.API.INFO goes unanswered (JetStream not enabled for the account): SyncFailed, retried", () => {
    const account = { ok: false, message: "jetstream not enabled for account" } as const;
    const decision = decide(observed(bucket(), account), now);
    expect(decision.kind === "finish" && decision.finish.answer.kind).toBe("again");
    expect(conditionOf(decision, "Ready")).toMatchObject({ status: "False", reason: "SyncFailed" });
    expect(conditionOf(decision, "Ready")?.message).toContain("$JS.API.INFO: jetstream not enabled for account");
  });

  it("needs no answer of $JS.API.INFO for a bucket at rest", () => {
    const object = bucket({ limitMarkerTTL: "5m" });
    object.status = { observedGeneration: 1 };
    const target = bucketTarget(object);
    const atRest = {
      config: { ...target.desired, metadata: { [markerOwnerKey]: "uid-sessions", [markerOriginKey]: "Created" } },
      info: { config: target.desired, created: "2026-12-06T09:00:00Z" },
    };
    const decision = decide({ ...observed(object, { ok: false, message: "timeout" }), server: atRest }, now);
    expect(decision.kind === "sync" && decision.plan.kind).toBe("settled");
  });

  it("asks $JS.API.INFO beside the bucket's stream, then creates it", async () => {
    const jetstream = fakeJetStream();
    const { events } = await pass(withFinalizer(bucket({ limitMarkerTTL: "5m" })), jetstream);
    expect([...jetstream.requests].sort()).toEqual(["account", "create KV_sessions", "info KV_sessions"]);
    expect(jetstream.requests.at(-1)).toBe("create KV_sessions");
    expect(events).toEqual(["Normal Created"]);
  });

  it("creates nothing on a server below API level 1 when the spec asks for limit markers", async () => {
    const jetstream = fakeJetStream({}, undefined, 0);
    const { events, after } = await pass(withFinalizer(bucket({ limitMarkerTTL: "5m" })), jetstream);
    expect(jetstream.requests).not.toContain("create KV_sessions");
    expect(events).toEqual(["Warning Rejected"]);
    expect(after?.status?.conditions?.find((c) => c.type === "Terminal")?.reason).toBe("Rejected");
  });
});
