import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import type { KubeObject, ObjectKey } from "../kube/object.ts";
import { writeStatus } from "../kube/status.ts";
import { createLogger } from "../telemetry/logger.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { decodeEvent, EventTypes } from "./event.ts";
import { defineFunction, type Acted, type Reconciler } from "./reconciler.ts";

const WIDGET = { apiVersion: "example.nats-operator.io/v1beta1", kind: "Widget" };
type Widget = KubeObject & { spec: { size: number }; status?: { size?: number; inputs?: Record<string, string> } };
const KEY: ObjectKey = { ...WIDGET, namespace: "team-a", name: "w" };
const widget = (): Widget => ({ ...WIDGET, metadata: { name: "w", namespace: "team-a" }, spec: { size: 3 } });

/** A reconciler writing its whole status, with the runtime's record when `carry` says so. */
const sizes = (carry: boolean): Reconciler<Widget, number, { summary: string; size: number }> => ({
  kind: WIDGET,
  observe: async (object) => object.spec.size,
  decide: (size) => ({ summary: `size ${size}`, size }),
  async act(object, decision, { kube, record }): Promise<Acted> {
    const written = await writeStatus(kube, object, { size: decision.size }, "widgets", {
      whole: true,
      ...(carry && record ? { record } : {}),
    });
    return { kind: "done", recorded: carry && written.kind === "written" };
  },
});

async function deliver(carry: boolean, seed: Widget = widget()) {
  const kube = memoryKube([seed]);
  const ce = new CloudEvent<unknown>({
    type: EventTypes.refUpdate,
    source: "test",
    apiversion: WIDGET.apiVersion,
    kind: WIDGET.kind,
    namespace: "team-a",
    name: "w",
  });
  const decoded = decodeEvent(ce);
  if (!decoded.ok) throw new Error(decoded.message);
  await defineFunction("widgets", [sizes(carry)]).handle(
    {
      log: createLogger({ level: "silent" }),
      event: decoded.event,
      kube: async () => kube,
      recorder: async () => ({ record: async () => {} }),
      now: () => new Date("2026-12-07T12:00:00Z"),
    },
    ce,
  );
  return { kube, status: (await kube.get<Widget>(KEY))?.status };
}

describe("the record of a reconcile's inputs, carried by act's own status write", () => {
  it("costs one status write, not two, when act writes the whole status with it", async () => {
    const carried = await deliver(true);
    const apart = await deliver(false);
    expect(carried.kube.writes.filter((w) => w === "status Widget w")).toHaveLength(1);
    expect(apart.kube.writes.filter((w) => w === "status Widget w")).toHaveLength(2);
    // The same record either way.
    expect(carried.status).toEqual(apart.status);
    expect(carried.status?.inputs?.["widgets"]).toMatch(/^[0-9a-f]{16}$/);
  });

  it("is written by the runtime when act's status is unchanged, and kept beside other functions' records", async () => {
    const seed = { ...widget(), status: { size: 3, inputs: { other: "0123456789abcdef" } } };
    const { kube, status } = await deliver(true, seed);
    expect(kube.writes.filter((w) => w === "status Widget w")).toHaveLength(1);
    expect(status?.inputs).toEqual({ other: "0123456789abcdef", widgets: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });
});
