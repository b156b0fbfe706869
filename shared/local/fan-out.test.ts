import { describe, expect, it } from "@jest/globals";
import { clusterEvent } from "../../test/support/events.ts";
import { scriptedFunction } from "../../test/support/functions.ts";
import { done } from "../runtime/outcome.ts";
import type { OperatorFunction } from "../runtime/function.ts";
import { routeToFunctions } from "./fan-out.ts";
import { loadTriggerRoutes } from "./manifests.ts";

const hosting = (...names: string[]) =>
  new Map<string, OperatorFunction>(names.map((name) => [name, scriptedFunction(async () => done(), name)]));

describe("routeToFunctions", () => {
  it("hands an event to each hosted function whose Trigger passes it", async () => {
    const delivered: string[] = [];
    const routing = routeToFunctions(await loadTriggerRoutes(), hosting("render-cluster", "step-rollout"), async (fn) =>
      delivered.push(fn.name),
    );
    routing.emit(clusterEvent());
    expect(delivered.sort()).toEqual(["render-cluster", "step-rollout"]);
  });

  it("skips a routed function the process does not host", async () => {
    const delivered: string[] = [];
    const routing = routeToFunctions(await loadTriggerRoutes(), hosting("render-cluster"), async (fn) =>
      delivered.push(fn.name),
    );
    routing.emit(clusterEvent());
    expect(delivered).toEqual(["render-cluster"]);
  });

  it("drains once every delivery started has ended", async () => {
    let finish = (): void => undefined;
    const routing = routeToFunctions(
      await loadTriggerRoutes(),
      hosting("render-cluster"),
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    routing.emit(clusterEvent());
    let drained = false;
    const draining = routing.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false);
    finish();
    await draining;
    expect(drained).toBe(true);
  });
});
