import { describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import { clusterEvent } from "../../test/support/events.ts";
import { loadTriggerRoutes } from "./manifests.ts";
import { routeEvent } from "./router.ts";
import { matchesFilter } from "./filters.ts";

describe("routeEvent with the Triggers in knative/", () => {
  it("sends NatsCluster changes to render-cluster and step-rollout", async () => {
    expect(routeEvent(await loadTriggerRoutes(), clusterEvent()).sort()).toEqual(["render-cluster", "step-rollout"]);
  });

  it("sends trust changes to render-cluster, which re-renders the clusters naming them, and to sign-account", async () => {
    for (const kind of ["NatsOperatorTrust", "NatsAccountTrust"]) {
      const ce = clusterEvent({
        type: "dev.knative.apiserver.resource.update",
        kind,
        apiversion: "nats-operator.io/v1beta1",
      });
      expect(routeEvent(await loadTriggerRoutes(), ce).sort()).toEqual(["render-cluster", "sign-account"]);
    }
  });

  it("sends a ping tick only to the function its PingSource targets", async () => {
    const tick = new CloudEvent<unknown>({
      type: "dev.knative.sources.ping",
      source: "/apis/v1/namespaces/a/pingsources/p",
      target: "sync-stream",
      data: "{}",
    });
    expect(routeEvent(await loadTriggerRoutes(), tick)).toEqual(["sync-stream"]);
  });

  it("sends Secret references to the functions that resolve them: render-cluster and sign-account", async () => {
    const ce = clusterEvent({ type: "dev.knative.apiserver.ref.update", kind: "Secret", apiversion: "v1" }, {});
    expect(routeEvent(await loadTriggerRoutes(), ce).sort()).toEqual(["render-cluster", "sign-account"]);
  });

  it("routes every kind the ApiServerSources watch to at least one function", async () => {
    const { loadWatchedResources } = await import("./manifests.ts");
    const routes = await loadTriggerRoutes();
    for (const resource of await loadWatchedResources()) {
      const ce = clusterEvent({
        type: "dev.knative.apiserver.resource.add",
        kind: resource.kind,
        apiversion: resource.apiVersion,
      });
      expect({ kind: resource.kind, routed: routeEvent(routes, ce).length > 0 }).toEqual({
        kind: resource.kind,
        routed: true,
      });
    }
  });
});

describe("matchesFilter", () => {
  const attributes = { type: "dev.knative.apiserver.resource.add", kind: "NatsStream" };

  it("combines dialects", () => {
    expect(
      matchesFilter({ all: [{ prefix: { type: "dev.knative." } }, { suffix: { kind: "Stream" } }] }, attributes),
    ).toBe(true);
    expect(matchesFilter({ not: { exact: { kind: "NatsStream" } } }, attributes)).toBe(false);
    expect(matchesFilter({ any: [{ exact: { kind: "X" } }, { exact: { kind: "NatsStream" } }] }, attributes)).toBe(
      true,
    );
  });

  it("never matches an attribute the event lacks", () => {
    expect(matchesFilter({ exact: { target: "balance" } }, attributes)).toBe(false);
  });
});
