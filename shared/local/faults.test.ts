import { describe, expect, it } from "@jest/globals";
import { limited } from "../kube/events.ts";
import { decideFault, describeFaults, parseFaults, withFaults, type Faults } from "./faults.ts";

const clean: Faults = { dropRatio: 0, duplicate: 0, reorderMs: 0, concurrency: Infinity, seed: 1, kinds: [] };

const fn = (name: string) => ({ name });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("parseFaults", () => {
  it("reads every fault of NATS_OPERATOR_FAULTS", () => {
    expect(parseFaults("drop=0.1,duplicate=1,reorder=300ms,concurrency=4,seed=7", 99)).toEqual({
      ok: true,
      faults: { dropRatio: 0.1, duplicate: 1, reorderMs: 300, concurrency: 4, seed: 7, kinds: [] },
    });
  });

  it("drops every event of the kinds named, and only with kinds named", () => {
    expect(parseFaults("drop=1,kinds=Secret+NatsReferenceGrant", 1)).toEqual({
      ok: true,
      faults: { ...clean, dropRatio: 1, kinds: ["Secret", "NatsReferenceGrant"] },
    });
    expect(parseFaults("kinds=secret", 1)).toMatchObject({
      ok: false,
      message: expect.stringContaining("joined by +"),
    });
  });

  it("leaves the faults not named off and takes the given seed when none is named", () => {
    expect(parseFaults("duplicate=2", 99)).toEqual({ ok: true, faults: { ...clean, duplicate: 2, seed: 99 } });
  });

  it("reads a drop ratio as a percentage and a reorder window in seconds", () => {
    expect(parseFaults(" drop=30% , reorder=1.5s ", 1)).toEqual({
      ok: true,
      faults: { ...clean, dropRatio: 0.3, reorderMs: 1500 },
    });
  });

  it("refuses an unknown key, naming the known ones", () => {
    expect(parseFaults("drop=0.1,delay=5s", 1)).toEqual({
      ok: false,
      message: 'unknown fault "delay"; known: drop, kinds, duplicate, reorder, concurrency, seed',
    });
  });

  it("refuses values out of range or malformed, saying what was expected", () => {
    expect(parseFaults("drop=1", 1)).toEqual({
      ok: false,
      message: "drop=1: expected a ratio below 1 (0.1 or 10%), or up to 1 with kinds=",
    });
    expect(parseFaults("drop=1.5,kinds=Secret", 1)).toMatchObject({ ok: false });
    expect(parseFaults("concurrency=0", 1)).toMatchObject({
      ok: false,
      message: expect.stringContaining("at least 1"),
    });
    expect(parseFaults("reorder=soon", 1)).toMatchObject({ ok: false, message: expect.stringContaining("300ms") });
    expect(parseFaults("duplicate", 1)).toEqual({ ok: false, message: '"duplicate" is not key=value' });
  });

  it("refuses a key given twice and a text naming nothing", () => {
    expect(parseFaults("seed=1,seed=2", 1)).toEqual({ ok: false, message: '"seed" is given twice' });
    expect(parseFaults(" , ", 1)).toMatchObject({ ok: false });
  });

  it("does not take an inherited property for a fault", () => {
    expect(parseFaults("constructor=1", 1)).toMatchObject({ ok: false, message: expect.stringContaining("unknown") });
  });
});

describe("describeFaults", () => {
  it("names each fault that is on and the seed, for the start line", () => {
    expect(describeFaults({ dropRatio: 0.1, duplicate: 1, reorderMs: 300, concurrency: 4, seed: 7, kinds: [] })).toBe(
      "drop 10%, 1 extra copy, reorder within 300 ms, at most 4 in flight per function (seed 7)",
    );
    expect(describeFaults({ ...clean, dropRatio: 1, kinds: ["Secret", "NatsReferenceGrant"] })).toBe(
      "drop 100% of Secret, NatsReferenceGrant events (seed 1)",
    );
    expect(describeFaults(clean)).toBe("none (seed 1)");
  });
});

describe("decideFault", () => {
  const faults: Faults = { ...clean, dropRatio: 0.3, duplicate: 1, reorderMs: 300, seed: 7 };

  it("decides the same for the same seed and delivery, so a run can be repeated", () => {
    const run = (seed: number) => Array.from({ length: 200 }, (_, n) => decideFault({ ...faults, seed }, n));
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it("drops about the share of deliveries asked for", () => {
    const dropped = Array.from({ length: 10_000 }, (_, n) => decideFault(faults, n)).filter(
      (d) => d.delaysMs.length === 0,
    ).length;
    expect(dropped / 10_000).toBeGreaterThan(0.28);
    expect(dropped / 10_000).toBeLessThan(0.32);
  });

  it("delivers every delivery not dropped once plus its duplicates, each delayed within the window", () => {
    const kept = Array.from({ length: 1_000 }, (_, n) => decideFault(faults, n)).filter((d) => d.delaysMs.length > 0);
    expect(kept.every((d) => d.delaysMs.length === 2)).toBe(true);
    const delays = kept.flatMap((d) => d.delaysMs);
    expect(delays.every((ms) => ms >= 0 && ms < 300)).toBe(true);
    expect(Math.max(...delays)).toBeGreaterThan(250);
  });

  it("delivers everything at once without faults", () => {
    expect(Array.from({ length: 100 }, (_, n) => decideFault(clean, n).delaysMs)).toEqual(
      Array.from({ length: 100 }, () => [0]),
    );
  });
});

describe("withFaults", () => {
  it("delivers each event to the function once more per duplicate", async () => {
    const seen: string[] = [];
    const deliver = withFaults(async (f: { name: string }, event: string) => seen.push(`${f.name}:${event}`), {
      ...clean,
      duplicate: 2,
    });
    await Promise.all([deliver(fn("a"), "e1"), deliver(fn("b"), "e2")]);
    expect(seen.sort()).toEqual(["a:e1", "a:e1", "a:e1", "b:e2", "b:e2", "b:e2"]);
  });

  it("resolves to no results for a dropped delivery and never calls the function", async () => {
    let calls = 0;
    const deliver = withFaults(
      async () => {
        calls++;
        return "done";
      },
      { ...clean, dropRatio: 0.5, seed: 3 },
    );
    const results = await Promise.all(Array.from({ length: 40 }, (_, n) => deliver(fn("a"), n)));
    const dropped = results.filter((r) => r.length === 0).length;
    expect(dropped).toBeGreaterThan(0);
    expect(calls).toBe(40 - dropped);
  });

  it("lets later events overtake earlier ones within the reorder window", async () => {
    const order: number[] = [];
    const deliver = withFaults(
      async (_f: { name: string }, event: number) => {
        order.push(event);
      },
      { ...clean, reorderMs: 50, seed: 5 },
    );
    await Promise.all(Array.from({ length: 20 }, (_, n) => deliver(fn("a"), n)));
    expect(order).toHaveLength(20);
    expect(order).not.toEqual([...order].sort((x, y) => x - y));
  });

  it("never has more deliveries of one function in flight than the concurrency", async () => {
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    const deliver = withFaults(
      async (f: { name: string }, ms: number) => {
        inFlight.set(f.name, (inFlight.get(f.name) ?? 0) + 1);
        most.set(f.name, Math.max(most.get(f.name) ?? 0, inFlight.get(f.name) ?? 0));
        await wait(ms);
        inFlight.set(f.name, (inFlight.get(f.name) ?? 0) - 1);
      },
      { ...clean, duplicate: 1, concurrency: 3 },
    );
    await Promise.all(
      Array.from({ length: 30 }, (_, n) => [deliver(fn("a"), n % 5), deliver(fn("b"), (n * 3) % 7)]).flat(),
    );
    // Each function has its own limit, and each reaches it: the limit is per function.
    expect(Object.fromEntries(most)).toEqual({ a: 3, b: 3 });
  });

  it("delivers the events of kinds not named as they are, and faults only the named ones", async () => {
    const seen: string[] = [];
    const deliver = withFaults(
      async (_f: { name: string }, event: { kind?: string; id: string }) => seen.push(event.id),
      { ...clean, dropRatio: 1, kinds: ["Secret"] },
      undefined,
      (event) => event.kind,
    );
    const results = await Promise.all([
      deliver(fn("a"), { kind: "Secret", id: "secret" }),
      deliver(fn("a"), { kind: "NatsCluster", id: "cluster" }),
      deliver(fn("a"), { id: "tick" }),
    ]);
    expect(results.map((r) => r.length)).toEqual([0, 1, 1]);
    expect(seen.sort()).toEqual(["cluster", "tick"]);
  });

  it("reports each delivery's decision", async () => {
    const decisions: number[] = [];
    const deliver = withFaults(
      async () => undefined,
      { ...clean, duplicate: 1 },
      (d) => decisions.push(d.delaysMs.length),
    );
    await deliver(fn("a"), 1);
    await deliver(fn("a"), 2);
    expect(decisions).toEqual([2, 2]);
  });
});

describe("the concurrency limit (limited, shared with Event writes)", () => {
  it("starts waiting tasks in arrival order as slots free up", async () => {
    const limit = limited(1);
    const started: number[] = [];
    await Promise.all(
      [30, 1, 1].map((ms, i) =>
        limit(async () => {
          started.push(i);
          await wait(ms);
        }),
      ),
    );
    expect(started).toEqual([0, 1, 2]);
  });

  it("frees the slot of a task that fails", async () => {
    const limit = limited(1);
    await expect(limit(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(limit(async () => "next")).resolves.toBe("next");
  });
});
