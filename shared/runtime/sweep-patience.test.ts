import { describe, expect, it } from "@jest/globals";
import { done, retry, type Outcome } from "./outcome.ts";
import { patienceOf } from "./sweep-patience.ts";

/** A clock the test moves: each attempt takes `stepMs`. */
function steppingClock(stepMs: number) {
  let now = 0;
  return { clock: () => now, step: () => void (now += stepMs) };
}

describe("a sweep's patience", () => {
  it("delivers again after a retry, up to its attempts", async () => {
    const patience = patienceOf({ attempts: 3, backoffMs: 1, windowMs: 1_000 });
    let calls = 0;
    const outcome = await patience.deliver(async (): Promise<Outcome> => (calls++, retry("503")));
    expect({ kind: outcome.kind, calls, again: patience.again }).toEqual({ kind: "retry", calls: 3, again: 2 });
  });

  it("begins no wait that would end past its window, counted from the sweep's start", async () => {
    const { clock, step } = steppingClock(40);
    const patience = patienceOf({ attempts: 9, backoffMs: 1, windowMs: 100 }, clock);
    let calls = 0;
    await patience.deliver(async () => (step(), calls++, retry("503")));
    // Attempts end at 40, 80 and 120 ms: a wait after the third would begin past the window.
    expect(calls).toBe(3);
  });

  it("reads again after a transient failure, and not after another", async () => {
    const patience = patienceOf({ attempts: 4, backoffMs: 1, windowMs: 1_000 });
    let calls = 0;
    const read = () => (calls++ < 2 ? Promise.reject(new Error("503")) : Promise.resolve("listed"));
    expect(await patience.read(read, () => true)).toBe("listed");
    calls = 0;
    await expect(patience.read(read, () => false)).rejects.toThrow("503");
    expect(calls).toBe(1);
  });

  it("takes a delivery that is done at its word", async () => {
    const patience = patienceOf({ attempts: 4, backoffMs: 1, windowMs: 1_000 });
    expect(await patience.deliver(async () => done("ok"))).toEqual(done("ok"));
    expect(patience.again).toBe(0);
  });
});
