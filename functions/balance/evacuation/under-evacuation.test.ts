import { describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { createConnectionPool } from "../../../shared/nats/index.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import type { NatsSystemBalancer } from "../system/resource.ts";
import type { NatsClusterEvacuationStatus } from "./resource.ts";
import { streamsUnderEvacuation } from "./under-evacuation.ts";

const AT = "2026-12-03T10:00:00.000Z";

/** A connection that reaches server `id`, answering `$SYS.REQ.SERVER.<id>.JSZ` for the servers of its system. */
function fakeConnection(id: string, system: readonly string[] = []): NatsConnection {
  const asked: string[] = [];
  return {
    info: { server_id: id },
    isClosed: () => false,
    asked,
    async request(subject: string) {
      asked.push(subject);
      const target = subject.split(".")[3] ?? "";
      if (!system.includes(target)) throw new Error("no responders");
      return { json: () => ({ data: {} }) };
    },
  } as unknown as NatsConnection;
}

const connection = (namespace: string, name: string, url: string): KubeObject =>
  ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { namespace, name },
    spec: { servers: [url] },
  }) as KubeObject;

function evacuation(
  namespace: string,
  name: string,
  connectionName: string,
  from: string,
  status: NatsClusterEvacuationStatus,
): KubeObject {
  return {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsClusterEvacuation",
    metadata: { namespace, name },
    spec: { connectionRef: { name: connectionName }, from: { cluster: from }, to: { serverTags: ["site:west"] } },
    status,
  } as KubeObject;
}

const requested = (stream: string) => ({ requested: [{ account: "APP", stream, time: AT }] });
const ready = { type: "Ready", status: "True" as const, reason: "Evacuated", message: "", lastTransitionTime: AT };

const balancer: NatsSystemBalancer = {
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsSystemBalancer",
  metadata: { namespace: "nats-system", name: "even" },
  spec: { connectionRef: { name: "system" } },
};

describe("streams a balancer leaves to an evacuation", () => {
  it("are those an unfinished evacuation of its NATS cluster, in the same NATS system, has requested", async () => {
    const kube = memoryKube([
      connection("nats-system", "system", "nats://a:4222"),
      connection("team-b", "elsewhere", "nats://b:4222"),
      connection("team-c", "same", "nats://c:4222"),
      // Same connection as the balancer: the same system without asking.
      evacuation("nats-system", "mine", "system", "js", requested("S1")),
      // Another system whose NATS cluster is also called js.
      evacuation("team-b", "theirs", "elsewhere", "js", requested("S2")),
      // Another connection to the same system.
      evacuation("team-c", "ours", "same", "js", requested("S3")),
      // Finished, or of another NATS cluster.
      evacuation("team-c", "done", "same", "js", { ...requested("S4"), conditions: [ready] }),
      evacuation("team-c", "east", "same", "east", requested("S5")),
    ]);
    const reaching: Record<string, string> = {
      "nats://b:4222": "NOTHER",
      "nats://c:4222": "NSAME",
      "nats://a:4222": "NSYS",
    };
    const pool = createConnectionPool(async (settings) => fakeConnection(reaching[settings.servers[0] ?? ""] ?? ""));
    const nc = fakeConnection("NSYS", ["NSYS", "NSAME"]);
    const streams = await streamsUnderEvacuation(kube, pool, balancer, nc, "js");
    expect(streams.map((s) => s.stream).sort()).toEqual(["S1", "S3"]);
    expect((nc as unknown as { asked: string[] }).asked.sort()).toEqual([
      "$SYS.REQ.SERVER.NOTHER.JSZ",
      "$SYS.REQ.SERVER.NSAME.JSZ",
    ]);
  });

  it("are, for an account balancer that cannot ask $SYS, those of every unfinished evacuation of a same-named cluster", async () => {
    const kube = memoryKube([
      evacuation("team-b", "theirs", "elsewhere", "js", requested("S2")),
      evacuation("team-c", "done", "same", "js", { ...requested("S4"), conditions: [ready] }),
      evacuation("team-c", "east", "same", "east", requested("S5")),
    ]);
    const pool = createConnectionPool(async () => fakeConnection(""));
    const nc = fakeConnection("NAPP");
    const streams = await streamsUnderEvacuation(kube, pool, balancer, nc, "js", false);
    expect(streams.map((s) => s.stream)).toEqual(["S2"]);
    expect((nc as unknown as { asked: string[] }).asked).toEqual([]);
  });
});
