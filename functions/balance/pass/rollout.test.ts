import { describe, expect, it } from "@jest/globals";
import { namespacesNamed, rolloutHold } from "./rollout.ts";

const connection = (namespace: string, ...servers: string[]) => ({ metadata: { namespace }, spec: { servers } });
const named = (...servers: string[]) => [...namespacesNamed("apps", connection("apps", ...servers))].sort();

describe("the NatsClusters that may pause a balancer", () => {
  it("are in its own namespace and its NatsConnection's", () => {
    expect([...namespacesNamed("apps", connection("shared", "nats://nats:4222"))].sort()).toEqual(["apps", "shared"]);
  });

  it("are in the namespace a server URL's in-cluster DNS name carries", () => {
    expect(named("nats://nats.nats-system:4222")).toEqual(["apps", "nats-system"]);
    expect(named("tls://nats.nats-system.svc:4222")).toEqual(["apps", "nats-system"]);
    expect(named("nats://nats-0-0.nats-headless.edge.svc.cluster.local:4222", "west.eu.svc:4222")).toEqual([
      "apps",
      "edge",
      "eu",
    ]);
  });

  it("are in no other namespace for an IP address or an outside host name", () => {
    expect(
      named("nats://10.0.0.7:4222", "nats://[fd00::7]:4222", "tls://nats.example.com:4222", "nats://:4222"),
    ).toEqual(["apps"]);
  });

  it("pause it only while their servers are its own and they are not Settled", () => {
    const settled = (status: "True" | "False") => ({
      type: "Settled",
      status,
      reason: status === "True" ? "AllGroupsCurrent" : "ServersSilent",
      message: "",
      lastTransitionTime: "2026-12-05T00:00:00Z",
    });
    const cluster = (name: string, status: "True" | "False", servers: string[]) => ({
      namespace: "apps",
      name,
      servers,
      settled: settled(status),
    });
    const roster = ["js-0", "js-1", "js-2"];
    expect(
      rolloutHold([cluster("other", "False", ["other-0"]), cluster("js", "True", roster)], roster),
    ).toBeUndefined();
    expect(rolloutHold([cluster("js", "False", roster)], roster)).toBe(
      "NatsCluster apps/js is not Settled (ServersSilent)",
    );
  });
});
