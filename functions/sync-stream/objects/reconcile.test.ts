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
import type { JetStreamServer } from "../jetstream/server.ts";
import type { Target } from "../targets/kinds.ts";
import { streamTarget } from "../targets/stream-target.ts";
import type { JetStreamObject, ServerObject } from "../types.ts";
import { decide, refused } from "./decide.ts";
import { objectReconciler } from "./reconciler.ts";
import type { Observed } from "./types.ts";

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

  it("retries a consumer whose stream is not on the server yet", () => {
    const decision = decide({ object: stream(), kind: "streamMissing", target: targetOf(stream()) }, now);
    expect(decision.kind === "finish" && decision.finish.answer.kind).toBe("again");
  });
});

/** A JetStream of streams by name that counts its requests, and refuses what `refuse` says. */
function fakeJetStream(seed: Record<string, Wire> = {}, refuse?: (config: Wire) => string | undefined) {
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
) {
  // A namespace per world: connections are remembered briefly by namespace and name.
  const namespace = `team-${Math.random().toString(36).slice(2, 8)}`;
  const object = { ...seed, metadata: { ...seed.metadata, namespace } };
  const kube = memoryKube([{ ...connection, metadata: { ...connection.metadata, namespace } }, object]);
  kube.writes.length = 0;
  const events: string[] = [];
  const reconciler = objectReconciler("NatsStream", { connect: async () => ({ ok: true, server: jetstream.server }) });
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
    now: () => now,
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
