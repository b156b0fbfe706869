// Properties of the manifests in knative/ that a real Knative install depends on and that the
// local runner cannot show: Serving accepts the Services, nothing is publicly routable, no event
// is dropped silently, and the Secrets source selects the Secrets sign-account writes.
import { describe, expect, it } from "@jest/globals";
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { brokerDelivery } from "../../shared/local/delivery.ts";
import { knativeDir, loadTriggerRoutes, loadWatchedResources } from "../../shared/local/manifests.ts";
import { pingEvent } from "../../shared/local/ping-event.ts";
import type { PingSourceSpec } from "../../shared/runtime/schedule-source.ts";
import { routeEvent } from "../../shared/local/router.ts";
import { RESYNC_WORK } from "../../shared/runtime/resync.ts";

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

interface Delivery {
  retry?: number;
  backoffPolicy?: string;
  backoffDelay?: string;
  deadLetterSink?: { ref?: { apiVersion: string; kind: string; name: string } };
}

interface ServiceSpec {
  template: {
    spec: {
      containers: { env?: { name: string; value?: string; valueFrom?: { fieldRef?: unknown } }[] }[];
    };
  };
}

async function manifests(file: string): Promise<Manifest[]> {
  const text = await readFile(new URL(file, knativeDir), "utf8");
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const services = async () => (await manifests("services.yaml")).filter((m) => m.kind === "Service");
const triggers = async () => (await manifests("triggers.yaml")).filter((m) => m.kind === "Trigger");
const broker = async () => {
  const [only, ...rest] = (await manifests("broker.yaml")).filter((m) => m.kind === "Broker");
  expect(rest).toEqual([]);
  return only as Manifest;
};

/** `PT0.5S` → 500; only the seconds form the manifests use. */
function isoSecondsToMs(duration: string | undefined): number {
  const match = /^PT(\d+(?:\.\d+)?)S$/.exec(duration ?? "");
  if (!match?.[1]) throw new Error(`not a PTnS duration: ${duration}`);
  return Math.round(Number(match[1]) * 1000);
}

describe("knative/services.yaml", () => {
  it("sets no env from valueFrom.fieldRef, which a default Serving refuses", async () => {
    for (const service of await services()) {
      const env = (service.spec as unknown as ServiceSpec).template.spec.containers.flatMap((c) => c.env ?? []);
      expect(env.filter((e) => e.valueFrom?.fieldRef !== undefined).map((e) => e.name)).toEqual([]);
    }
  });

  it("makes every Service cluster-local", async () => {
    const all = await services();
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const service of all) {
      expect([service.metadata.name, service.metadata.labels?.["networking.knative.dev/visibility"]]).toEqual([
        service.metadata.name,
        "cluster-local",
      ]);
    }
  });

  it("are each selected by the optional NetworkPolicy (knative/network-policy.yaml)", async () => {
    const [policy] = await manifests("network-policy.yaml");
    const selector = policy?.spec["podSelector"] as {
      matchExpressions: { key: string; operator: string; values: string[] }[];
    };
    expect(selector.matchExpressions.map((e) => [e.key, e.operator])).toEqual([["serving.knative.dev/service", "In"]]);
    expect([...(selector.matchExpressions[0]?.values ?? [])].sort()).toEqual(
      (await services()).map((s) => s.metadata.name).sort(),
    );
  });

  it("offers sign-account's system connection as an optional setting, empty by default", async () => {
    const signAccount = (await services()).find((s) => s.metadata.name === "sign-account");
    const env = (signAccount?.spec as unknown as ServiceSpec).template.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "NATS_OPERATOR_SYSTEM_CONNECTION")).toEqual({
      name: "NATS_OPERATOR_SYSTEM_CONNECTION",
      value: "",
    });
  });
});

describe("knative/broker.yaml and knative/triggers.yaml", () => {
  const expectDelivery = async (owner: string, delivery: Delivery | undefined) => {
    const sinkName = delivery?.deadLetterSink?.ref?.name;
    expect([owner, delivery?.retry, delivery?.backoffPolicy, isoSecondsToMs(delivery?.backoffDelay)]).toEqual([
      owner,
      brokerDelivery.retries,
      "exponential",
      brokerDelivery.backoffMs,
    ]);
    // The dead-letter sink is one of the Services installed with the operator.
    expect([owner, delivery?.deadLetterSink?.ref?.kind]).toEqual([owner, "Service"]);
    expect((await services()).map((s) => s.metadata.name)).toContain(sinkName);
  };

  it("states the Broker class", async () => {
    expect((await broker()).metadata.annotations?.["eventing.knative.dev/broker.class"]).toBe("MTChannelBasedBroker");
  });

  it("gives the Broker and every Trigger the delivery the local runner uses, and a dead-letter sink", async () => {
    await expectDelivery("broker", (await broker()).spec["delivery"] as Delivery);
    const all = await triggers();
    expect(all.length).toBeGreaterThanOrEqual(5);
    for (const trigger of all) await expectDelivery(trigger.metadata.name, trigger.spec["delivery"] as Delivery);
  });

  it("subscribes every Trigger to the Broker and a cluster-local Service", async () => {
    const names = new Set((await services()).map((s) => s.metadata.name));
    for (const trigger of await triggers()) {
      const spec = trigger.spec as { broker: string; subscriber: { ref: { name: string } } };
      expect(spec.broker).toBe((await broker()).metadata.name);
      expect(names.has(spec.subscriber.ref.name)).toBe(true);
    }
  });
});

describe("knative/resync.yaml", () => {
  it("ticks every function's resync, cluster-wide from the operator's namespace, each routed to that function alone", async () => {
    const routes = await loadTriggerRoutes();
    const sources = (await manifests("resync.yaml")).filter((m) => m.kind === "PingSource");
    const routed = sources.map((m) => {
      const spec = m.spec as unknown as PingSourceSpec & { data: string; timezone: string };
      expect([m.metadata.name, m.metadata.namespace, spec.timezone, JSON.parse(spec.data)]).toEqual([
        m.metadata.name,
        "nats-operator",
        "UTC",
        RESYNC_WORK,
      ]);
      return routeEvent(routes, pingEvent("nats-operator", m.metadata.name, spec));
    });
    expect(routed).toEqual([["render-cluster"], ["step-rollout"], ["sign-account"], ["sync-stream"], ["balance"]]);
  });
});

describe("knative/apiserversources.yaml", () => {
  it("watches every Secret, users' unlabelled ones too, in Reference mode so no secret data crosses the Broker", async () => {
    const secrets = (await loadWatchedResources()).filter((r) => r.kind === "Secret");
    expect(secrets).toHaveLength(1);
    expect(secrets[0]?.mode).toBe("Reference");
    expect(secrets[0]?.selector).toBeUndefined();
  });
});

describe("knative/oidc/event-policy.yaml", () => {
  it("lets the operator's namespace send to the Broker", async () => {
    const [policy] = await manifests("oidc/event-policy.yaml");
    const spec = policy?.spec as { to: { ref: { kind: string; name: string } }[]; from: { sub?: string }[] };
    expect(policy?.kind).toBe("EventPolicy");
    expect(spec.to).toEqual([
      { ref: expect.objectContaining({ kind: "Broker", name: (await broker()).metadata.name }) },
    ]);
    expect(spec.from).toContainEqual({ sub: `system:serviceaccount:${(await broker()).metadata.namespace}:*` });
  });
});
