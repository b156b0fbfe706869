import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { reportsOf, SERVERS, streamsLedBy } from "../../../test/fixtures/cluster/balance-jsz.ts";
import { act } from "./act.ts";
import type { MoveSender } from "../pass/claim.ts";
import type { NatsSystemBalancer } from "./resource.ts";
import { decide } from "./decide.ts";
import type { MoveRequest } from "../pass/types.ts";
import type { Observed } from "./observe.ts";
import { mergeSnapshot } from "../leaders/snapshot.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const KEY = {
  apiVersion: "jetstream.nats-operator.io/v1beta1" as const,
  kind: "NatsSystemBalancer" as const,
  namespace: "nats-system",
  name: "even",
};

function world() {
  const stored: NatsSystemBalancer = {
    apiVersion: KEY.apiVersion,
    kind: KEY.kind,
    metadata: { name: KEY.name, namespace: KEY.namespace, generation: 1 },
    spec: { connectionRef: { name: "system" } },
  };
  const kube = memoryKube([stored as KubeObject]);
  const events: string[] = [];
  const recorder = {
    record: async (_: KubeObject, type: string, reason: string, note: string) =>
      void events.push(`${type} ${reason}: ${note}`),
  };
  const sent: MoveRequest[] = [];
  const send =
    (answer?: string): MoveSender =>
    async (move) => {
      sent.push(move);
      return answer;
    };
  const observe = async (): Promise<Observed> => {
    const balancer = (await kube.get<NatsSystemBalancer>(KEY)) as NatsSystemBalancer;
    const snapshot = mergeSnapshot("js", SERVERS, reportsOf({ streams: streamsLedBy("js-0", 9) }));
    return { balancer, others: [], nats: { kind: "read", snapshot, reach: new Map([["ACCT_APP", true]]) } };
  };
  const read = async () => (await kube.get<NatsSystemBalancer>(KEY)) as NatsSystemBalancer;
  return { kube, recorder, events, sent, send, observe, read };
}

describe("balance acting on its decision", () => {
  it("claims the pass with its status write, then requests the one move and records MoveStarted", async () => {
    const { kube, recorder, events, sent, send, observe, read } = world();
    const observed = await observe();
    const acted = await act(kube, recorder, observed.balancer, decide(observed, NOW), send());
    expect(acted).toEqual({ kind: "done" });
    expect(sent).toEqual([{ target: { account: "ACCT_APP", stream: "S1" }, from: "js-0", to: "js-1" }]);
    expect(events).toEqual([
      "Normal MoveStarted: moving the leader of stream S1 in account ACCT_APP from js-0 to js-1",
    ]);
    const status = (await read()).status;
    expect(status?.pending).toHaveLength(1);
    expect(status?.lastMove).toMatchObject({ stream: "S1", from: "js-0", to: "js-1" });
  });

  it("moves nothing when another delivery claimed the pass first", async () => {
    const { kube, recorder, events, sent, send, observe } = world();
    const [first, second] = [await observe(), await observe()];
    expect(await act(kube, recorder, first.balancer, decide(first, NOW), send())).toEqual({ kind: "done" });
    expect(await act(kube, recorder, second.balancer, decide(second, NOW), send())).toEqual({ kind: "conflict" });
    expect(sent).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it("a refused move is a Warning, is taken back from pending, and the next waits interval", async () => {
    const { kube, recorder, events, send, observe, read } = world();
    const observed = await observe();
    const acted = await act(kube, recorder, observed.balancer, decide(observed, NOW), send("the server refused it"));
    expect(acted).toEqual({ kind: "done", refused: "the server refused it" });
    expect(events.at(-1)).toBe("Warning MoveRefused: the server refused it");
    const status = (await read()).status;
    expect(status?.pending).toEqual([]);
    expect(status?.lastMove?.time).toBe(NOW.toISOString());
    const again = await observe();
    expect(decide(again, new Date(NOW.getTime() + 1_000)).move).toBeUndefined();
  });
});
