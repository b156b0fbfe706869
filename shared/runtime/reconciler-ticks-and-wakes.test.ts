// The parts of the reconciler contract sync-stream leans on: a tick led by several mappings, an
// object gone waking what relied on it, and mappings whose objects are of another of the
// function's kinds.
import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import { memoryKube } from "../../test/support/memory-kube.ts";
import type { KubeObject, ObjectKey } from "../kube/object.ts";
import { createLogger } from "../telemetry/logger.ts";
import type { OperatorEvent } from "./event.ts";
import type { FunctionContext } from "./function.ts";
import { defineFunction, type Cause, type Reconciler, type RelatedContext } from "./reconciler.ts";
import { keepPolling, stopPolling } from "./schedule.ts";

const apiVersion = "example.io/v1";
const key = (kind: string, name: string): ObjectKey => ({ apiVersion, kind, namespace: "team", name });
const object = (kind: string, name: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: "team" },
});
const poll = { namespace: "team", name: "poll" };
const keep = keepPolling({ ...poll, target: "fn", work: {}, scope: { kind: "namespace" } }, { cron: "* * * * *" });

/** A reconciler that logs each pass with its cause, and acts as `act` says. */
function toy(
  kind: string,
  log: string[],
  extra: Partial<Reconciler<KubeObject, KubeObject, { summary: string }>> = {},
): Reconciler<KubeObject, KubeObject, { summary: string }> {
  const causeOf = (cause: Cause) =>
    cause.kind === "related"
      ? `related ${cause.from === "tick" ? "tick" : cause.from.kind}${cause.gone ? " gone" : ""}`
      : cause.kind;
  return {
    kind: { apiVersion, kind },
    observe: async (o) => o,
    decide: (o) => ({ summary: o.metadata.name }),
    act: async (o, _d, { cause }) => {
      log.push(`${kind} ${o.metadata.name} (${causeOf(cause)})`);
      return { kind: "done" };
    },
    ...extra,
  };
}

function contextOf(kube: ReturnType<typeof memoryKube>, event: OperatorEvent): FunctionContext {
  return {
    log: createLogger({ level: "silent" }),
    event,
    kube: async () => kube,
    recorder: async () => ({ record: async () => undefined }),
    now: () => new Date("2026-12-06T10:00:00Z"),
  };
}

const ping = (work: Record<string, unknown>): OperatorEvent => ({ source: "ping", pingSource: "team/poll", work });
const changed = (ref: ObjectKey): OperatorEvent => ({
  source: "apiserver",
  action: "update",
  mode: "reference",
  ref,
  snapshot: undefined,
});
const cloudEvent = new CloudEvent<unknown>({ type: "test", source: "/test", data: {} });

describe("a tick that names no object", () => {
  it("runs every mapping that answers, in order, each after the objects of the one before, with afterwards last", async () => {
    const kube = memoryKube([object("Gadget", "g1"), object("Widget", "w1")]);
    const log: string[] = [];
    const fn = defineFunction("fn", [
      toy("Gadget", log, {
        related: [{ tick: true, map: async () => [key("Gadget", "g1")] }],
        act: async () => {
          log.push("Gadget g1");
          return { kind: "done", schedules: [keep] };
        },
      }),
      toy("Widget", log, {
        related: [
          {
            tick: true,
            map: async (_work: unknown, { pingSource }: RelatedContext) => {
              log.push(`map widgets (${pingSource ?? "?"})`);
              return [key("Widget", "w1")];
            },
            afterwards: async () => [stopPolling(poll)],
          },
        ],
      }),
    ]);
    const outcome = await fn.handle(contextOf(kube, ping({ check: "x" })), cloudEvent);
    expect(log).toEqual(["Gadget g1", "map widgets (team/poll)", "Widget w1 (related tick)"]);
    expect(outcome.kind).toBe("done");
    expect(outcome.schedules).toEqual([stopPolling(poll)]);
  });

  it("sends each object a mapping leads to to the reconciler of its kind", async () => {
    const kube = memoryKube([object("Gadget", "g1"), object("Widget", "w1")]);
    const log: string[] = [];
    const fn = defineFunction("fn", [
      toy("Gadget", log),
      toy("Widget", log, {
        related: [{ tick: true, map: async () => [key("Gadget", "g1"), key("Widget", "w1")] }],
      }),
    ]);
    await fn.handle(contextOf(kube, ping({})), cloudEvent);
    expect(log.sort()).toEqual(["Gadget g1 (related tick)", "Widget w1 (related tick)"]);
  });
});

describe("an object found gone", () => {
  it("answers through its gone step, which may wake what relied on it, told that it is gone", async () => {
    const kube = memoryKube([object("Widget", "w1")]);
    const log: string[] = [];
    const fn = defineFunction("fn", [
      toy("Gadget", log, {
        gone: async () => ({ kind: "skipped", reason: "gone; its client is closed", wake: [key("Widget", "w1")] }),
      }),
      toy("Widget", log),
    ]);
    const outcome = await fn.handle(contextOf(kube, changed(key("Gadget", "g1"))), cloudEvent);
    expect(outcome.kind).toBe("skipped");
    expect(log).toEqual(["Widget w1 (related Gadget gone)"]);
  });
});
