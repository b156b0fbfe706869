import { describe, expect, it } from "@jest/globals";
import { clusterEvent } from "../../test/support/events.ts";
import { decodeEvent, type OperatorEvent } from "./event.ts";
import { isStatusEcho } from "./echo.ts";

function eventWith(data: unknown, type = "dev.knative.apiserver.resource.update"): OperatorEvent {
  const result = decodeEvent(clusterEvent({ type }, data));
  if (!result.ok) throw new Error(result.message);
  return result.event;
}

describe("isStatusEcho", () => {
  it("drops an update whose status already observed the current generation", () => {
    expect(isStatusEcho(eventWith({ metadata: { generation: 3 }, status: { observedGeneration: 3 } }))).toBe(true);
  });

  it("keeps an update with a spec change not yet observed", () => {
    expect(isStatusEcho(eventWith({ metadata: { generation: 4 }, status: { observedGeneration: 3 } }))).toBe(false);
  });

  it("keeps an update of an object being deleted", () => {
    const data = {
      metadata: { generation: 3, deletionTimestamp: "2026-12-01T00:00:00Z" },
      status: { observedGeneration: 3 },
    };
    expect(isStatusEcho(eventWith(data))).toBe(false);
  });

  it("keeps an update carrying an annotation the function acts on", () => {
    const data = {
      metadata: { generation: 3, annotations: { "cluster.nats-operator.io/force-step": "true" } },
      status: { observedGeneration: 3 },
    };
    expect(isStatusEcho(eventWith(data), ["cluster.nats-operator.io/force-step"])).toBe(false);
  });

  it("keeps adds, even of objects already observed", () => {
    expect(
      isStatusEcho(
        eventWith(
          { metadata: { generation: 3 }, status: { observedGeneration: 3 } },
          "dev.knative.apiserver.resource.add",
        ),
      ),
    ).toBe(false);
  });

  it("keeps an update the function still cares about, by its own look at the payload", () => {
    const data = {
      metadata: { generation: 3 },
      status: { observedGeneration: 3, conditions: [{ type: "Progressing", reason: "ReconcileFailed" }] },
    };
    const staleFailure = (snapshot: { status?: { conditions?: { reason?: string }[] } }) =>
      snapshot.status?.conditions?.some((c) => c.reason === "ReconcileFailed") ?? false;
    expect(isStatusEcho(eventWith(data), [], staleFailure)).toBe(false);
  });
});
