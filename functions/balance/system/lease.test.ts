import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { reportsOf, SERVERS, streamsLedBy } from "../../../test/fixtures/cluster/balance-jsz.ts";
import type { NatsSystemBalancer } from "./resource.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import { currentHolder, leaseName, type MoveLease, readLease, writeLease } from "../pass/lease.ts";
import type { Observed } from "./observe.ts";
import { mergeSnapshot } from "../leaders/snapshot.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const ME = "NatsSystemBalancer nats-system/even";
const OTHER = "NatsSystemBalancer team-a/other";

function observed(lease: MoveLease, pending = false): Observed {
  const balancer: NatsSystemBalancer = {
    apiVersion: "jetstream.nats-operator.io/v1beta1",
    kind: "NatsSystemBalancer",
    metadata: { name: "even", namespace: "nats-system", uid: "uid-even", generation: 1 },
    spec: { connectionRef: { name: "system" } },
    ...(pending
      ? {
          status: {
            pending: [
              {
                kind: "Leader" as const,
                account: "ACCT_APP",
                stream: "S1",
                consumer: "",
                from: "js-0",
                to: "js-1",
                time: secondsAgo(3),
              },
            ],
          },
        }
      : {}),
  };
  const streams = pending
    ? [{ name: "S1", leader: "js-0", behind: ["js-1"] }, ...streamsLedBy("js-0", 8, "T")]
    : streamsLedBy("js-0", 9);
  const snapshot = mergeSnapshot("js", SERVERS, reportsOf({ streams }));
  return {
    balancer,
    others: [],
    nats: { kind: "read", snapshot, reach: new Map([["ACCT_APP", true]]), lease },
  };
}
const lease = (holder?: string, renewed = 5): MoveLease => ({
  namespace: "nats-system",
  name: leaseName("js"),
  ...(holder ? { holder, renewTime: secondsAgo(renewed) } : {}),
  resourceVersion: "7",
});

describe("the move lease", () => {
  it("is taken with the move when nobody holds it", () => {
    const d = decide(observed(lease()), NOW);
    expect(d.move).toBeDefined();
    expect(d.lease?.op).toEqual({ kind: "take", holder: ME, at: NOW });
  });

  it("held by another balancer, makes no move and reads Holding=True, MoveLeaseHeld", () => {
    const d = decide(observed(lease(OTHER)), NOW);
    expect(d.move).toBeUndefined();
    expect(d.lease).toBeUndefined();
    expect(d.events.map((e) => e.reason)).not.toContain("MoveStarted");
    expect(d.status.pending).toEqual([]);
    expect(d.status.conditions?.find((c) => c.type === "Holding")).toMatchObject({
      status: "True",
      reason: "MoveLeaseHeld",
      message: `${OTHER} holds the move lease of NATS cluster js (it lapses at 2026-12-03T10:00:55.000Z unless renewed)`,
    });
  });

  it("lapses a minute after its holder's last pass, and is taken over", () => {
    expect(currentHolder(lease(OTHER, 61), NOW)).toBeUndefined();
    const d = decide(observed(lease(OTHER, 61)), NOW);
    expect(d.move).toBeDefined();
    expect(d.lease?.op.kind).toBe("take");
  });

  it("is renewed by its holder while the move is pending, and let go once a pass finds it done", () => {
    expect(decide(observed(lease(ME), true), NOW).lease?.op.kind).toBe("renew");
    const settledNothingToMove: Observed = {
      ...observed(lease(ME)),
      nats: {
        kind: "read",
        snapshot: mergeSnapshot("js", SERVERS, reportsOf({ streams: [] })),
        lease: lease(ME),
      },
    };
    expect(decide(settledNothingToMove, NOW).lease?.op.kind).toBe("release");
  });

  it("is written guarded: of two takers over the same read, one gets it", async () => {
    const kube = memoryKube([]);
    const read = await readLease(kube, "nats-system", "js");
    expect(read).toEqual({ namespace: "nats-system", name: leaseName("js") });
    expect(await writeLease(kube, read, { kind: "take", holder: ME, at: NOW })).toBe(true);
    expect(await writeLease(kube, read, { kind: "take", holder: OTHER, at: NOW })).toBe(false);
    const taken = await readLease(kube, "nats-system", "js");
    expect(taken).toMatchObject({ holder: ME, renewTime: "2026-12-03T10:00:00.000000Z" });
    expect(await writeLease(kube, taken, { kind: "release", holder: ME, at: NOW })).toBe(true);
    expect((await readLease(kube, "nats-system", "js")).holder).toBeUndefined();
    const stored = await kube.get<KubeObject>({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "nats-system",
      name: leaseName("js"),
    });
    expect(stored).toBeDefined();
  });

  it("is named after the NATS cluster, as a valid object name", () => {
    expect(leaseName("js")).toMatch(/^nats-balance-js-[0-9a-f]{8}$/);
    expect(leaseName("East_Cluster.1")).toMatch(/^nats-balance-east-cluster-1-[0-9a-f]{8}$/);
  });

  it("lost to another taker, stops the pass before its claim and its move", async () => {
    const stored = observed(lease()).balancer;
    const kube = memoryKube([stored as KubeObject]);
    const read = await readLease(kube, "nats-system", "js");
    await writeLease(kube, read, { kind: "take", holder: OTHER, at: NOW });
    const d = decide(observed(read), NOW);
    const sent: unknown[] = [];
    const recorder = { record: async () => undefined };
    const acted = await act(kube, recorder, stored, d, async (move) => void sent.push(move));
    expect(acted).toEqual({ kind: "conflict" });
    expect(sent).toEqual([]);
  });
});
