import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "./object.ts";
import { confinedKube, watchedNamespaces } from "./confined.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";

const stream = (namespace: string, name: string): KubeObject => ({
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name, namespace },
});
const key = (namespace: string, name: string) => ({
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  namespace,
  name,
});

describe("watchedNamespaces", () => {
  it("reads WATCH_NAMESPACES, comma-separated, without blanks or repeats; empty is every namespace", () => {
    expect(watchedNamespaces(" team-a, ,nats-operator,team-a ")).toEqual(["team-a", "nats-operator"]);
    expect(watchedNamespaces("")).toBeUndefined();
    expect(watchedNamespaces(undefined)).toBeUndefined();
  });
});

describe("a Kube confined to some namespaces", () => {
  const all = memoryKube([stream("team-a", "orders"), stream("team-b", "orders"), stream("ops", "audit")]);
  const kube = confinedKube(all, ["team-a", "ops"]);

  it("lists across namespaces as one list per watched namespace, leaving the others out", async () => {
    const found = await kube.list({ apiVersion: "jetstream.nats-operator.io/v1beta1", kind: "NatsStream" });
    expect(found.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort()).toEqual([
      "ops/audit",
      "team-a/orders",
    ]);
  });

  it("finds nothing in a namespace it does not watch, even by name", async () => {
    expect(await kube.get(key("team-b", "orders"))).toBeUndefined();
    expect(
      await kube.list({ apiVersion: "jetstream.nats-operator.io/v1beta1", kind: "NatsStream", namespace: "team-b" }),
    ).toEqual([]);
    expect((await kube.get(key("team-a", "orders")))?.metadata.namespace).toBe("team-a");
  });

  it("lists a cluster-scoped kind once, as it is", async () => {
    const nodes = confinedKube(memoryKube([{ apiVersion: "v1", kind: "Node", metadata: { name: "n1" } }]), ["a", "b"]);
    expect((await nodes.list({ apiVersion: "v1", kind: "Node" })).map((n) => n.metadata.name)).toEqual(["n1"]);
  });
});
