import { describe, expect, it } from "@jest/globals";
import { decideResyncCap, LAST_RESYNC_ANNOTATION, type ResyncCapInput, type ResyncSource } from "./resync-cap.ts";

const source = (lastSwept?: string, spec: Partial<ResyncSource> = {}): ResyncSource => ({
  namespace: "nats-operator",
  name: "sync-stream-resync",
  resourceVersion: "41",
  schedule: "*/10 * * * *",
  timezone: "UTC",
  ...(lastSwept !== undefined ? { annotations: { [LAST_RESYNC_ANNOTATION]: lastSwept } } : {}),
  ...spec,
});

const input = (now: string, found: ResyncSource | undefined, more: Partial<ResyncCapInput> = {}): ResyncCapInput => ({
  fn: "sync-stream",
  pingSource: "nats-operator/sync-stream-resync",
  found,
  home: "nats-operator",
  now: new Date(now),
  ...more,
});

describe("the resync cap", () => {
  it("sweeps a firing no sweep has claimed, claiming it over the resourceVersion read", () => {
    expect(decideResyncCap(input("2026-12-07T10:20:00.150Z", source("2026-12-07T10:10:00.000Z")))).toEqual({
      kind: "sweep",
      claim: {
        namespace: "nats-operator",
        name: "sync-stream-resync",
        resourceVersion: "41",
        firing: "2026-12-07T10:20:00.000Z",
        previous: "2026-12-07T10:10:00.000Z",
      },
    });
  });

  it("skips every further tick until the next firing, however many arrive", () => {
    for (const now of ["2026-12-07T10:20:00.300Z", "2026-12-07T10:24:00Z", "2026-12-07T10:29:57Z"])
      expect(decideResyncCap(input(now, source("2026-12-07T10:20:00.000Z")))).toEqual({
        kind: "skip",
        reason: "the firing at 2026-12-07T10:20:00.000Z of nats-operator/sync-stream-resync is swept already",
      });
  });

  it("sweeps the first PingSource tick ever, which finds no annotation", () => {
    const cap = decideResyncCap(input("2026-12-07T10:20:01Z", source()));
    expect(cap).toMatchObject({ kind: "sweep", claim: { firing: "2026-12-07T10:20:00.000Z", previous: undefined } });
  });

  it("counts a tick from an adapter whose clock runs a little ahead as its own firing", () => {
    const cap = decideResyncCap(input("2026-12-07T10:29:59.200Z", source("2026-12-07T10:20:00.000Z")));
    expect(cap).toMatchObject({ kind: "sweep", claim: { firing: "2026-12-07T10:30:00.000Z" } });
  });

  it("counts a tick delivered late as its own firing, not the next one's, on a 5-second schedule", () => {
    const every5s = source("2026-12-07T10:00:00.000Z", { schedule: "*/5 * * * * *" });
    const cap = decideResyncCap(input("2026-12-07T10:00:09.000Z", every5s));
    expect(cap).toMatchObject({ kind: "sweep", claim: { firing: "2026-12-07T10:00:05.000Z" } });
  });

  it("does not believe a recorded firing ahead of the clock, which would hold every sweep off", () => {
    const cap = decideResyncCap(input("2026-12-07T10:20:01Z", source("2027-01-01T00:00:00.000Z")));
    expect(cap).toMatchObject({ kind: "sweep", claim: { firing: "2026-12-07T10:20:00.000Z" } });
  });

  it("in a pod, takes ticks only from the function's own resync PingSource in the operator's namespace", () => {
    const elsewhere = input("2026-12-07T10:20:01Z", source(undefined, { namespace: "team-a" }), {
      pingSource: "team-a/sync-stream-resync",
    });
    expect(decideResyncCap(elsewhere)).toEqual({
      kind: "skip",
      reason:
        "a resync of sync-stream is taken from nats-operator/sync-stream-resync only, not team-a/sync-stream-resync",
    });
    const forged = input("2026-12-07T10:20:01Z", undefined, { pingSource: undefined });
    expect(decideResyncCap(forged)).toMatchObject({ kind: "skip" });
    const another = input("2026-12-07T10:20:01Z", undefined, { pingSource: "nats-operator/balance-resync" });
    expect(decideResyncCap(another)).toMatchObject({ kind: "skip" });
    const missing = input("2026-12-07T10:20:01Z", undefined);
    expect(decideResyncCap(missing)).toEqual({
      kind: "skip",
      reason: "no PingSource nats-operator/sync-stream-resync: nothing to sweep for",
    });
  });

  it("outside a pod, sweeps a tick whose PingSource is not in the cluster (npm start, hand-made ticks)", () => {
    expect(decideResyncCap(input("2026-12-07T10:20:01Z", undefined, { home: undefined }))).toEqual({ kind: "sweep" });
  });

  it("outside a pod, caps the ticks of a PingSource that is in the cluster, wherever it is", () => {
    const inTest = source("2026-12-07T10:20:00.000Z", { namespace: "test-1" });
    const cap = decideResyncCap(
      input("2026-12-07T10:20:03Z", inTest, { home: undefined, pingSource: "test-1/sync-stream-resync" }),
    );
    expect(cap.kind).toBe("skip");
  });

  it("sweeps a schedule firing less often than it looks back once per look-back period", () => {
    const yearly = (swept?: string) => source(swept, { schedule: "0 0 1 1 *" });
    const first = decideResyncCap(input("2026-12-07T10:20:01Z", yearly()));
    expect(first.kind).toBe("sweep");
    const firing = first.kind === "sweep" ? first.claim?.firing : undefined;
    expect(decideResyncCap(input("2026-12-07T10:20:02Z", yearly(firing)))).toMatchObject({ kind: "skip" });
  });

  it("reads the schedule in the PingSource's timezone", () => {
    const daily = source("2026-12-06T02:00:00.000Z", { schedule: "0 3 * * *", timezone: "Europe/Berlin" });
    const cap = decideResyncCap(input("2026-12-07T02:00:01Z", daily));
    expect(cap).toMatchObject({ kind: "sweep", claim: { firing: "2026-12-07T02:00:00.000Z" } });
  });

  it("skips, saying why, a schedule or timezone it cannot read", () => {
    expect(decideResyncCap(input("2026-12-07T10:20:01Z", source(undefined, { schedule: "@every 5m" })))).toEqual({
      kind: "skip",
      reason: 'PingSource nats-operator/sync-stream-resync: schedule "@every 5m" needs 5 or 6 fields',
    });
    expect(decideResyncCap(input("2026-12-07T10:20:01Z", source(undefined, { timezone: "Mars/Olympus" })))).toEqual({
      kind: "skip",
      reason: "PingSource nats-operator/sync-stream-resync: unknown timezone Mars/Olympus",
    });
  });
});
