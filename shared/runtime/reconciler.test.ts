import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { EventRecorder } from "../kube/events.ts";
import type { KubeObject, ObjectKey } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { decodeEvent, EventTypes } from "./event.ts";
import type { FunctionContext } from "./function.ts";
import { defineFunction, type Acted, type Reconciler, type Related, type RelatedContext } from "./reconciler.ts";
import { keepPolling, stopPolling, type ScheduleDecision } from "./schedule.ts";

const WIDGET = { apiVersion: "example.nats-operator.io/v1beta1", kind: "Widget" };
const GADGET = { apiVersion: "example.nats-operator.io/v1beta1", kind: "Gadget" };

type Widget = KubeObject & { spec: { size: number }; status?: { size?: number } };
const widget = (name: string, extra: Partial<Widget["metadata"]> = {}): Widget => ({
  ...WIDGET,
  metadata: { name, namespace: "team-a", ...extra },
  spec: { size: 3 },
});
const keyOf = (name: string, kind = WIDGET): ObjectKey => ({ ...kind, namespace: "team-a", name });
const poll = (name: string): ScheduleDecision =>
  keepPolling(
    { namespace: "team-a", name: `${name}-poll`, target: "widgets", work: {}, scope: { kind: "namespace" } },
    { every: "1m" },
  );
const stop = (name: string): ScheduleDecision => stopPolling({ namespace: "team-a", name: `${name}-poll` });

interface Decision {
  summary: string;
  size: number;
  schedules: ScheduleDecision[];
}

/** A reconciler that copies spec.size into status, recording every step it was asked to take. */
function widgets(steps: string[], overrides: Partial<Reconciler<Widget, number, Decision>> = {}) {
  const reconciler: Reconciler<Widget, number, Decision> = {
    kind: WIDGET,
    schedulesOf: (key) => [stop(key.name)],
    async observe(object) {
      steps.push(`observe ${object.metadata.name}`);
      return object.spec.size;
    },
    decide: (size) => ({ summary: `size ${size}`, size, schedules: [poll("w")] }),
    async act(object, decision, { kube }): Promise<Acted> {
      steps.push(`act ${object.metadata.name}`);
      await kube.patch(keyOf(object.metadata.name), { status: { size: decision.size } }, "merge");
      return { kind: "done" };
    },
    ...overrides,
  };
  return reconciler;
}

function harness(seed: KubeObject[]) {
  const kube = memoryKube(seed);
  const recorder: EventRecorder = { record: async () => {} };
  const run = (fn: ReturnType<typeof defineFunction>, ce: CloudEvent<unknown>) => {
    const decoded = decodeEvent(ce);
    if (!decoded.ok) throw new Error(decoded.message);
    const context: FunctionContext = {
      log: createLogger({ level: "silent" }),
      event: decoded.event,
      kube: async () => kube,
      recorder: async () => recorder,
      now: () => new Date("2026-12-06T12:00:00Z"),
    };
    return fn.handle(context, ce);
  };
  return { kube, run };
}

const updateOf = (kind: { apiVersion: string; kind: string }, name: string) =>
  new CloudEvent<unknown>({
    type: EventTypes.refUpdate,
    source: "test",
    apiversion: kind.apiVersion,
    kind: kind.kind,
    namespace: "team-a",
    name,
  });
const tick = (work: Record<string, unknown>) =>
  new CloudEvent<unknown>({
    type: EventTypes.ping,
    source: "/apis/v1/namespaces/team-a/pingsources/w-poll",
    data: work,
  });

describe("defineFunction", () => {
  it("handles the kinds of its reconcilers and of what they relate to, and owns the reconcilers' kinds", () => {
    const fn = defineFunction("widgets", [widgets([], { related: [{ kind: GADGET, map: async () => [] }] })]);
    expect(fn.kinds).toEqual(["Widget.example.nats-operator.io", "Gadget.example.nats-operator.io"]);
    expect(fn.owns).toEqual(["Widget.example.nats-operator.io"]);
  });

  it("observes, decides and acts on the object an event names, keeping the decision's schedules", async () => {
    const steps: string[] = [];
    const { kube, run } = harness([widget("w")]);
    const outcome = await run(defineFunction("widgets", [widgets(steps)]), updateOf(WIDGET, "w"));
    expect(outcome).toEqual({ kind: "done", summary: "size 3", schedules: [poll("w")] });
    expect(steps).toEqual(["observe w", "act w"]);
    // Beside its own status, the record of what it read (nothing): the resync compares it (inputs.ts).
    expect((await kube.get<Widget>(keyOf("w")))?.status).toEqual({
      size: 3,
      inputs: { widgets: expect.stringMatching(/^[0-9a-f]{16}$/) },
    });
  });

  it("answers an object that is gone without observing it, and drops its schedules", async () => {
    const steps: string[] = [];
    const { run } = harness([]);
    const outcome = await run(defineFunction("widgets", [widgets(steps)]), updateOf(WIDGET, "w"));
    expect(outcome).toEqual({ kind: "skipped", reason: "Widget team-a/w is gone", schedules: [stop("w")] });
    expect(steps).toEqual([]);
  });

  it("leaves an object being deleted alone unless the reconciler finalizes", async () => {
    const steps: string[] = [];
    const deleting = widget("w", { deletionTimestamp: "2026-12-06T11:00:00Z", finalizers: ["x"] });
    const { run } = harness([deleting]);
    expect(await run(defineFunction("widgets", [widgets(steps)]), updateOf(WIDGET, "w"))).toMatchObject({
      kind: "skipped",
      reason: "Widget team-a/w is being deleted",
    });
    const finalizing = widgets(steps, {
      finalize: async () => ({ kind: "done", summary: "released" }),
    });
    expect(await run(defineFunction("widgets", [finalizing]), updateOf(WIDGET, "w"))).toEqual({
      kind: "done",
      summary: "released",
      schedules: [stop("w")],
    });
    expect(steps).toEqual([]);
  });

  it("reconciles an object being deleted as any other while the reconciler says it still does, keeping its schedules", async () => {
    const steps: string[] = [];
    const deleting = widget("w", { deletionTimestamp: "2026-12-06T11:00:00Z", finalizers: ["x"] });
    const { run } = harness([deleting]);
    const holding = widgets(steps, {
      reconcilesWhileDeleting: (object) => (object.metadata.finalizers ?? []).includes("x"),
      finalize: async () => ({ kind: "done", summary: "released" }),
    });
    expect(await run(defineFunction("widgets", [holding]), updateOf(WIDGET, "w"))).toEqual({
      kind: "done",
      summary: "size 3",
      schedules: [poll("w")],
    });
    expect(steps).toEqual(["observe w", "act w"]);
  });

  it("stops at a prepare step that lost its guarded write, answering 409", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("w")]);
    const preparing = widgets(steps, {
      prepare: async () => ({ kind: "conflict", message: "the finalizer write lost" }),
    });
    expect(await run(defineFunction("widgets", [preparing]), updateOf(WIDGET, "w"))).toEqual({
      kind: "conflict",
      message: "the finalizer write lost",
    });
    expect(steps).toEqual([]);
  });

  it("keeps the decision's schedules when acting lost its claim", async () => {
    const { run } = harness([widget("w")]);
    const losing = widgets([], { act: async () => ({ kind: "conflict", message: "claimed elsewhere" }) });
    expect(await run(defineFunction("widgets", [losing]), updateOf(WIDGET, "w"))).toEqual({
      kind: "conflict",
      message: "claimed elsewhere",
      schedules: [poll("w")],
    });
  });

  it("reconciles the object a tick names", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("w")]);
    const fn = defineFunction("widgets", [widgets(steps)]);
    expect(await run(fn, tick({ kind: "Widget", namespace: "team-a", name: "w" }))).toMatchObject({ kind: "done" });
    expect(steps).toEqual(["observe w", "act w"]);
  });

  it("skips a tick that names nothing of its kinds", async () => {
    const { run } = harness([widget("w")]);
    expect(await run(defineFunction("widgets", [widgets([])]), tick({ kind: "Gadget" }))).toMatchObject({
      kind: "skipped",
    });
  });

  it("reconciles every object a related change leads to", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("a"), widget("b")]);
    const related = widgets(steps, { related: [{ kind: GADGET, map: async () => [keyOf("a"), keyOf("b")] }] });
    const outcome = await run(defineFunction("widgets", [related]), updateOf(GADGET, "g"));
    expect(outcome.kind).toBe("done");
    expect(steps.sort()).toEqual(["act a", "act b", "observe a", "observe b"]);
  });

  it("skips a related change that leads to nothing, or only to objects left alone, saying why", async () => {
    const { run } = harness([]);
    const leadingNowhere = widgets([], { related: [{ kind: GADGET, map: async () => [] }] });
    expect(await run(defineFunction("widgets", [leadingNowhere]), updateOf(GADGET, "g"))).toMatchObject({
      kind: "skipped",
      reason: "Gadget team-a/g leads to nothing widgets reconciles",
    });
    const leadingToGone = widgets([], { related: [{ kind: GADGET, map: async () => [keyOf("a")] }] });
    expect(await run(defineFunction("widgets", [leadingToGone]), updateOf(GADGET, "g"))).toMatchObject({
      kind: "skipped",
      reason: "Widget team-a/a is gone",
    });
  });

  it("retries a related change when one object it leads to needs another try, after reconciling the rest", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("a"), widget("b")]);
    const flaky = widgets(steps, {
      related: [{ kind: GADGET, map: async () => [keyOf("a"), keyOf("b")] }],
      act: async (object) => {
        steps.push(`act ${object.metadata.name}`);
        if (object.metadata.name === "a") throw new Error("NATS timed out");
        return { kind: "done" };
      },
    });
    const outcome = await run(defineFunction("widgets", [flaky]), updateOf(GADGET, "g"));
    expect(outcome.kind).toBe("retry");
    expect(steps).toContain("act b");
  });

  it("keeps an object's own schedules when an object it leads to needs another try", async () => {
    const { run } = harness([widget("a"), widget("b")]);
    const failing = widgets([], {
      act: async (object) => {
        if (object.metadata.name === "b") throw new Error("NATS timed out");
        return { kind: "done", wake: [keyOf("b")] };
      },
    });
    const outcome = await run(defineFunction("widgets", [failing]), updateOf(WIDGET, "a"));
    expect(outcome).toMatchObject({ kind: "retry", schedules: [poll("w")] });
  });

  it("reconciles the objects a tick mapping leads to", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("a")]);
    const ticking = widgets(steps, {
      related: [
        {
          tick: true,
          map: async (work: Readonly<Record<string, unknown>>) =>
            work["settle"] === "team-a" ? [keyOf("a")] : undefined,
        },
      ],
    });
    expect(await run(defineFunction("widgets", [ticking]), tick({ settle: "team-a" }))).toMatchObject({
      kind: "done",
    });
    expect(steps).toEqual(["observe a", "act a"]);
  });

  it("reconciles the objects an object's result wakes", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("a"), widget("b")]);
    const waking = widgets(steps, {
      act: async (object) => {
        steps.push(`act ${object.metadata.name}`);
        return object.metadata.name === "a" ? { kind: "done", wake: [keyOf("b")] } : { kind: "done" };
      },
    });
    await run(defineFunction("widgets", [waking]), updateOf(WIDGET, "a"));
    expect(steps).toEqual(["observe a", "act a", "observe b", "act b"]);
  });

  it("reconciles an object once per delivery, however many objects wake it", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("a"), widget("b")]);
    const circular = widgets(steps, {
      act: async (object) => {
        steps.push(`act ${object.metadata.name}`);
        return { kind: "done", wake: [keyOf(object.metadata.name === "a" ? "b" : "a")] };
      },
    });
    await run(defineFunction("widgets", [circular]), updateOf(WIDGET, "a"));
    expect(steps).toEqual(["observe a", "act a", "observe b", "act b"]);
  });

  it("takes another pass when act asks to look again, observe told what act did, within `passes`", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("w")]);
    const looking: Reconciler<Widget, number, Decision, string> = {
      ...widgets(steps),
      passes: 3,
      async observe(object, _context, carried) {
        steps.push(`observe after [${carried.join(", ")}]`);
        return object.spec.size;
      },
      act: async () => ({ kind: "look-again", carry: `push ${steps.length}` }),
    };
    const outcome = await run(defineFunction("widgets", [looking]), updateOf(WIDGET, "w"));
    expect(steps).toEqual(["observe after []", "observe after [push 1]", "observe after [push 1, push 2]"]);
    // After the last pass the decision stands: its poll looks again later.
    expect(outcome).toEqual({ kind: "done", summary: "size 3", schedules: [poll("w")] });
  });

  it("reconciles an object being deleted like any other when its reconciler says so", async () => {
    const steps: string[] = [];
    const deleting = widget("w", { deletionTimestamp: "2026-12-06T11:00:00Z", finalizers: ["x"] });
    const { run } = harness([deleting]);
    const outcome = await run(
      defineFunction("widgets", [widgets(steps, { reconcilesWhileDeleting: () => true })]),
      updateOf(WIDGET, "w"),
    );
    expect(outcome).toMatchObject({ kind: "done", summary: "size 3" });
    expect(steps).toEqual(["observe w", "act w"]);
  });

  it("reconciles an object's dependents after it, read after its reconcile, even when it is gone", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("b")]);
    const depending = widgets(steps, {
      dependents: async (key) => {
        steps.push(`dependents of ${key.name}`);
        return key.name === "a" ? [keyOf("b")] : [];
      },
    });
    await run(defineFunction("widgets", [depending]), updateOf(WIDGET, "a"));
    expect(steps).toEqual(["dependents of a", "observe b", "act b", "dependents of b"]);
  });

  it("visits an object a second time in a delivery when asked to again, once", async () => {
    const steps: string[] = [];
    const { run } = harness([widget("a"), widget("b")]);
    const revisiting = widgets(steps, {
      dependents: async (key) => (key.name === "a" ? [keyOf("b"), { ...keyOf("a"), again: true }] : [keyOf("a")]),
    });
    await run(defineFunction("widgets", [revisiting], { inOrder: true }), updateOf(WIDGET, "a"));
    expect(steps).toEqual(["observe a", "act a", "observe b", "act b", "observe a", "act a"]);
  });

  it("in order: one object at a time, breadth first, each after the one before it", async () => {
    const steps: string[] = [];
    let inFlight = 0;
    const { run } = harness(["a", "b", "c", "d"].map((n) => widget(n)));
    const leads: Record<string, string[]> = { a: ["b", "c"], b: ["d"] };
    const ordered = widgets(steps, {
      async observe(object) {
        inFlight++;
        steps.push(`observe ${object.metadata.name}${inFlight > 1 ? " while another is" : ""}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        return object.spec.size;
      },
      act: async () => ({ kind: "done" }),
      dependents: async (key) => (leads[key.name] ?? []).map((n) => keyOf(n)),
    });
    await run(defineFunction("widgets", [ordered], { inOrder: true }), updateOf(WIDGET, "a"));
    expect(steps).toEqual(["observe a", "observe b", "observe c", "observe d"]);
  });

  it("hands a related mapping the delivery, so mappings share what they list", async () => {
    let lists = 0;
    const { run } = harness([widget("a"), widget("b")]);
    const listing = (name: string): Related => ({
      kind: GADGET,
      map: async (_ref: unknown, { delivery }: RelatedContext) =>
        delivery.once("gadget referrers", () => ++lists) > 0 ? [keyOf(name)] : [],
    });
    const outcome = await run(
      defineFunction("widgets", [widgets([], { related: [listing("a"), listing("b")] })]),
      updateOf(GADGET, "g"),
    );
    expect(outcome.kind).toBe("done");
    expect(lists).toBe(1);
  });

  it("shares what one delivery reads once between the objects it reconciles, and not with the next", async () => {
    let reads = 0;
    const { run } = harness([widget("a"), widget("b")]);
    const sharing = widgets([], {
      related: [{ kind: GADGET, map: async () => [keyOf("a"), keyOf("b")] }],
      observe: async (object, { delivery }) => delivery.once("roster", () => ++reads) + object.spec.size,
    });
    const fn = defineFunction("widgets", [sharing]);
    await run(fn, updateOf(GADGET, "g"));
    expect(reads).toBe(1);
    await run(fn, updateOf(GADGET, "g"));
    expect(reads).toBe(2);
  });
});

describe("the record of a reconcile's inputs", () => {
  const gadget = (name: string, resourceVersion: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
    ...GADGET,
    metadata: { name, namespace: "team-a", resourceVersion, ...extra },
  });
  /** Widgets that read a Gadget by name, their own child Gadget, and the namespace's Gadgets. */
  const reading = (steps: string[]) =>
    widgets(steps, {
      related: [{ kind: GADGET, map: async () => [] }],
      async observe(object, { kube }) {
        await kube.get(keyOf("shared", GADGET));
        await kube.get(keyOf("child", GADGET));
        await kube.get(keyOf("missing", GADGET));
        await kube.list({ ...GADGET, namespace: "team-a" });
        await kube.list({ ...GADGET });
        return object.spec.size;
      },
      act: async () => ({ kind: "done" }),
    });
  const seed = () => [
    widget("w", { uid: "uid-w" }),
    gadget("shared", "5"),
    gadget("child", "6", { ownerReferences: [{ ...WIDGET, name: "w", uid: "uid-w", controller: true }] }),
  ];
  const recordIn = async (kube: ReturnType<typeof memoryKube>) =>
    (await kube.get<Widget & { status?: { inputs?: Record<string, string> } }>(keyOf("w")))?.status?.inputs?.[
      "widgets"
    ];

  it("names the objects of related kinds read by name (absent ones too) and the namespaced listings, not its children", async () => {
    const { kube, run } = harness(seed());
    await run(defineFunction("widgets", [reading([])]), updateOf(WIDGET, "w"));
    const [digest, ...refs] = (await recordIn(kube))?.split(" ") ?? [];
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(refs).toEqual([
      "example.nats-operator.io/v1beta1:Gadget:team-a/*",
      "example.nats-operator.io/v1beta1:Gadget:team-a/missing",
      "example.nats-operator.io/v1beta1:Gadget:team-a/shared",
    ]);
  });

  it("changes with an input's resourceVersion, and is not written again while nothing changed", async () => {
    const { kube, run } = harness(seed());
    const fn = defineFunction("widgets", [reading([])]);
    await run(fn, updateOf(WIDGET, "w"));
    const first = await recordIn(kube);
    const records = () => kube.writes.filter((w) => w === "status Widget w").length;
    const written = records();
    await run(fn, updateOf(WIDGET, "w"));
    expect(records()).toBe(written);
    expect(await recordIn(kube)).toBe(first);
    await kube.patch(keyOf("shared", GADGET), { metadata: { labels: { rotated: "yes" } } }, "merge");
    await run(fn, updateOf(WIDGET, "w"));
    expect(await recordIn(kube)).not.toBe(first);
  });

  it("is not kept by a function whose resync re-delivers everything, nor for a kind whose status it does not own", async () => {
    const { kube, run } = harness(seed());
    await run(defineFunction("widgets", [reading([])], { checksDrift: true }), updateOf(WIDGET, "w"));
    expect(await recordIn(kube)).toBeUndefined();
    await run(defineFunction("widgets", [{ ...reading([]), ownsStatus: false }]), updateOf(WIDGET, "w"));
    expect(await recordIn(kube)).toBeUndefined();
  });
});
