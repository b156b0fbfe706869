import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { Kube, ListQuery } from "../kube/client.ts";
import { KubeRequestError } from "../kube/errors.ts";
import type { KubeObject } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { dispatch } from "./dispatch.ts";
import type { OperatorFunction } from "./function.ts";
import { done, retry, conflict, type Outcome } from "./outcome.ts";
import { formatRecord, listingVersion, type InputRead } from "./inputs.ts";
import { RESYNC_WORK } from "./resync.ts";
import type { SweepPatience } from "./sweep-patience.ts";

type Condition = { type: string; status: string; reason: string };

const stream = (namespace: string, name: string, generation: number, observed: number, conditions: Condition[]) =>
  ({
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsStream",
    metadata: { name, namespace, generation, uid: `${namespace}-${name}`, resourceVersion: "7" },
    spec: {},
    status: { observedGeneration: observed, conditions },
  }) as KubeObject;

const ready: Condition = { type: "Ready", status: "True", reason: "Synced" };
const failing: Condition = { type: "Ready", status: "False", reason: "ConnectFailed" };
const stalled: Condition = { type: "Stalled", status: "True", reason: "RequestRefused" };

const tick = (work: Record<string, unknown> = RESYNC_WORK) =>
  new CloudEvent<unknown>({
    id: "tick-1",
    type: "dev.knative.sources.ping",
    source: "/apis/v1/namespaces/nats-operator/pingsources/sync-stream-resync",
    datacontenttype: "application/json",
    target: "sync-stream",
    data: work,
  });

type Options = Pick<OperatorFunction, "checksDrift" | "caresAbout" | "recordsInputs" | "showsFailure"> & {
  work?: Record<string, unknown>;
  now?: Date;
  /** The API server refuses the function listings of Secrets (it may only get them). */
  noSecretListing?: boolean;
  /** The function's answers to its deliveries, in turn; done once they run out. */
  answers?: Outcome[];
  /** Listings the API server answers 503 before it answers again. */
  unavailableListings?: number;
  patience?: SweepPatience;
};

/** Patience as the sweep's, with waits of a millisecond. */
const quick: SweepPatience = { attempts: 4, backoffMs: 1, windowMs: 10_000 };

function sweepOf(objects: KubeObject[], options: Options = {}) {
  const delivered: string[] = [];
  const fn: OperatorFunction = {
    name: "sync-stream",
    kinds: ["NatsStream.jetstream.nats-operator.io", "NatsReferenceGrant.nats-operator.io"],
    owns: ["NatsStream.jetstream.nats-operator.io"],
    handlesPings: true,
    ...(options.checksDrift ? { checksDrift: true } : {}),
    ...(options.recordsInputs ? { recordsInputs: true } : {}),
    ...(options.caresAbout ? { caresAbout: options.caresAbout } : {}),
    ...(options.showsFailure ? { showsFailure: options.showsFailure } : {}),
    async handle(context) {
      if (context.event.source === "apiserver")
        delivered.push(`${context.event.action} ${context.event.ref.namespace}/${context.event.ref.name}`);
      return answers.shift() ?? done("reconciled");
    },
  };
  const answers = [...(options.answers ?? [])];
  let unavailable = options.unavailableListings ?? 0;
  const memory = memoryKube(objects);
  const kube: Kube = {
    ...memory,
    list: async <T extends KubeObject>(query: ListQuery) => {
      if (options.noSecretListing && query.kind === "Secret")
        throw new KubeRequestError(403, "Forbidden", "secrets is forbidden");
      if (unavailable-- > 0)
        throw new KubeRequestError(503, "ServiceUnavailable", "the server is currently unavailable");
      return memory.list<T>(query);
    },
  };
  const deps = {
    log: createLogger({ level: "silent" }),
    kube: async () => kube,
    recorder: async () => ({ record: async () => undefined }),
    sweepPatience: options.patience ?? quick,
    ...(options.now ? { now: () => options.now as Date } : {}),
  };
  return { run: () => dispatch(fn, tick(options.work), deps), delivered, kube: memory };
}

describe("a resync tick", () => {
  it("leaves objects at rest alone", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [ready])]);
    expect((await run()).kind).toBe("done");
    expect(delivered).toEqual([]);
  });

  it("delivers an update of each owned object whose spec is not yet observed, in every namespace", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 3, 2, [ready]), stream("b", "audit", 1, 1, [ready])]);
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("delivers an object left un-Ready even though its status is current, which an echo check would drop", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [failing])]);
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("delivers an object Stalled by a refused request, so a fixed RBAC takes effect without an edit", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [ready, stalled])]);
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("answers 400 to a tick that says it is a resync and is not one, sweeping nothing", async () => {
    for (const work of [{ resync: "yes" }, { resync: true, namespace: 7 }, { resync: true, namespace: "" }]) {
      const { run, delivered } = sweepOf([stream("a", "orders", 3, 2, [ready])], { work });
      expect(await run()).toMatchObject({ kind: "malformed", message: expect.stringContaining("a resync tick's") });
      expect(delivered).toEqual([]);
    }
  });

  it("says what it swept", async () => {
    const { run } = sweepOf([stream("a", "orders", 3, 2, [ready]), stream("b", "audit", 1, 1, [ready])]);
    expect(await run()).toMatchObject({
      kind: "done",
      summary: "resync: 2 objects, 1 not at rest delivered, 0 not done",
    });
  });

  it("delivers every owned object, at rest or not, to a function that checks drift", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 2, 2, [ready]), stream("b", "audit", 1, 1, [ready])], {
      checksDrift: true,
    });
    expect(await run()).toMatchObject({ summary: "resync: 2 objects, 2 delivered to check drift, 0 not done" });
    expect(delivered).toEqual(["update a/orders", "update b/audit"]);
  });

  it("sweeps only the namespace its body names", async () => {
    const { run, delivered } = sweepOf([stream("a", "orders", 3, 2, [ready]), stream("b", "audit", 2, 1, [ready])], {
      work: { ...RESYNC_WORK, namespace: "b" },
    });
    await run();
    expect(delivered).toEqual(["update b/audit"]);
  });

  it("delivers an object at rest whose status names a time that has come, as the function judges it", async () => {
    const due = {
      ...stream("a", "orders", 2, 2, [ready]),
      status: { observedGeneration: 2, conditions: [ready], renewAt: "2026-06-01T00:00:00Z" },
    };
    const later = {
      ...stream("b", "audit", 2, 2, [ready]),
      status: { observedGeneration: 2, conditions: [ready], renewAt: "2027-06-01T00:00:00Z" },
    };
    const { run, delivered } = sweepOf([due, later] as KubeObject[], {
      now: new Date("2026-12-05T00:00:00Z"),
      caresAbout: (snapshot, now) =>
        Date.parse(String((snapshot.status as Record<string, unknown> | undefined)?.["renewAt"])) <= now.getTime(),
    });
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });
});

describe("a resync tick under the API server's faults", () => {
  const unrest = () => stream("a", "orders", 3, 2, [ready]);

  it("delivers again, with backoff, an object whose delivery failed for now, as the Broker would its event", async () => {
    const { run, delivered } = sweepOf([unrest()], { answers: [retry("503"), conflict("409")] });
    expect(await run()).toMatchObject({
      kind: "done",
      summary: "resync: 1 objects, 1 not at rest delivered, 0 not done, 2 tried again after a failure",
    });
    expect(delivered).toEqual(["update a/orders", "update a/orders", "update a/orders"]);
  });

  it("gives a delivery that keeps failing its attempts, and leaves it to the next tick", async () => {
    const { run, delivered } = sweepOf([unrest()], { answers: Array.from({ length: 9 }, () => retry("503")) });
    expect(await run()).toMatchObject({
      summary: "resync: 1 objects, 1 not at rest delivered, 1 not done, 3 tried again after a failure",
    });
    expect(delivered).toHaveLength(4);
  });

  it("lists again a kind whose listing failed for now", async () => {
    const { run, delivered } = sweepOf([unrest()], { unavailableListings: 2 });
    expect(await run()).toMatchObject({ kind: "done", summary: expect.stringContaining("2 tried again") });
    expect(delivered).toEqual(["update a/orders"]);
  });

  it("fails the tick, for the Broker to retry, when the listing keeps failing", async () => {
    const { run, delivered } = sweepOf([unrest()], { unavailableListings: 4 });
    expect((await run()).kind).toBe("retry");
    expect(delivered).toEqual([]);
  });

  it("delivers an object at rest that shows a failure of the function's last reconcile, as one Stalled", async () => {
    const failed = {
      ...stream("a", "orders", 2, 2, [ready]),
      metadata: { ...stream("a", "orders", 2, 2, [ready]).metadata, annotations: { failure: "503" } },
    };
    const { run, delivered } = sweepOf([failed, stream("a", "audit", 2, 2, [ready])], {
      showsFailure: (snapshot) => "failure" in (snapshot.metadata?.annotations ?? {}),
    });
    await run();
    expect(delivered).toEqual(["update a/orders"]);
  });
});

describe("a resync tick of a function that records its reconciles' inputs", () => {
  const secret = (name: string, resourceVersion: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: "a", resourceVersion },
  });
  const grant = (name: string, resourceVersion: string): KubeObject => ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsReferenceGrant",
    metadata: { name, namespace: "b", resourceVersion },
  });
  const readSecret = (version: string): InputRead => ({
    apiVersion: "v1",
    kind: "Secret",
    namespace: "a",
    name: "tls",
    version,
  });
  /** A stream at rest whose record says it read `reads`, taken from the world as it stood then. */
  const recorded = (name: string, record: unknown) => {
    const object = stream("a", name, 2, 2, [ready]) as KubeObject & { status: Record<string, unknown> };
    return { ...object, status: { ...object.status, inputs: { "sync-stream": record } } } as KubeObject;
  };
  const grantsOfB = () => ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsReferenceGrant",
    namespace: "b",
    name: "*",
  });

  /** The version the memory API server gave the Secret. */
  const versionOf = async (kube: Kube) =>
    (await kube.get({ apiVersion: "v1", kind: "Secret", namespace: "a", name: "tls" }))?.metadata.resourceVersion ?? "";
  /** Writes a stream's record, as its reconcile would have. */
  const record = (kube: Kube, name: string, reads: InputRead[]) =>
    kube.applyStatus(
      { ...stream("a", name, 2, 2, [ready]), status: { inputs: { "sync-stream": formatRecord(reads, 2) } } },
      "test",
    );
  const atRest = (name: string) => stream("a", name, 2, 2, [ready]);

  it("leaves alone the objects whose inputs are as they were read, and delivers those whose input changed", async () => {
    const { run, delivered, kube } = sweepOf([secret("tls", "41"), atRest("current"), atRest("rotated")], {
      recordsInputs: true,
    });
    const version = await versionOf(kube);
    await record(kube, "current", [readSecret(version)]);
    await record(kube, "rotated", [readSecret(`${version}0`)]);
    expect(await run()).toMatchObject({
      summary: "resync: 2 objects, 0 not at rest delivered, 1 whose inputs changed delivered, 0 not done",
    });
    expect(delivered).toEqual(["update a/rotated"]);
  });

  it("delivers an object whose input is gone, or whose namespace listing lost an item (a grant deleted)", async () => {
    const { run, delivered, kube } = sweepOf(
      [grant("admit", "7"), grant("other", "8"), atRest("withdrawn"), atRest("gone"), atRest("kept")],
      { recordsInputs: true },
    );
    const grants = await kube.list({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsReferenceGrant",
      namespace: "b",
    });
    const listing: InputRead = { ...grantsOfB(), version: listingVersion(grants) };
    await record(kube, "withdrawn", [listing]);
    await record(kube, "kept", [listing]);
    await record(kube, "gone", [readSecret("41")]);
    await kube.delete({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsReferenceGrant",
      namespace: "b",
      name: "admit",
    });
    // "kept" is recorded again after the delete, as its reconcile would; "withdrawn" is not.
    const after = await kube.list({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsReferenceGrant",
      namespace: "b",
    });
    await record(kube, "kept", [{ ...grantsOfB(), version: listingVersion(after) }]);
    await run();
    expect(delivered.sort()).toEqual(["update a/gone", "update a/withdrawn"]);
  });

  it("delivers once an object with no record or one that does not parse, saying so", async () => {
    const { run, delivered } = sweepOf(
      [stream("a", "unrecorded", 2, 2, [ready]), recorded("garbled", "not a digest"), recorded("odd", 7)],
      { recordsInputs: true },
    );
    expect(await run()).toMatchObject({
      summary:
        "resync: 3 objects, 0 not at rest delivered, 0 whose inputs changed delivered, " +
        "1 without a record of their inputs delivered, 2 with an unreadable record of their inputs delivered, 0 not done",
    });
    expect(delivered.sort()).toEqual(["update a/garbled", "update a/odd", "update a/unrecorded"]);
  });

  it("gets the inputs of a kind one by one when the function may not list it", async () => {
    const { run, delivered, kube } = sweepOf([secret("tls", "41"), atRest("current"), atRest("rotated")], {
      recordsInputs: true,
      noSecretListing: true,
    });
    const version = await versionOf(kube);
    await record(kube, "current", [readSecret(version)]);
    await record(kube, "rotated", [readSecret(`${version}0`)]);
    expect((await run()).kind).toBe("done");
    expect(delivered).toEqual(["update a/rotated"]);
  });

  it("reads each namespace's listing of a kind once, however many objects name it", async () => {
    const names = Array.from({ length: 50 }, (_, i) => `s${i}`);
    const { run, delivered, kube } = sweepOf([secret("tls", "41"), ...names.map(atRest)], { recordsInputs: true });
    const version = await versionOf(kube);
    for (const name of names) await record(kube, name, [readSecret(version)]);
    const lists: string[] = [];
    const list = kube.list.bind(kube);
    kube.list = async <T extends KubeObject>(query: ListQuery) => {
      lists.push(`${query.kind} ${query.namespace ?? "*"}`);
      return list<T>(query);
    };
    await run();
    expect(delivered).toEqual([]);
    expect(lists.sort()).toEqual(["NatsStream *", "Secret a"]);
  });
});
