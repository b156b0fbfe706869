import { describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterEvent } from "../../test/support/events.ts";
import { offlineDeps, scriptedFunction } from "../../test/support/functions.ts";
import { conflict, done, retry, type Outcome } from "../runtime/outcome.ts";
import { deliverWithRetries } from "./delivery.ts";
import { readEventLog } from "./replay.ts";

const fast = { retries: 3, backoffMs: 1 };

function answering(...answers: Outcome[]) {
  return scriptedFunction(async () => answers.shift() ?? done());
}

describe("deliverWithRetries", () => {
  it("redelivers conflicts and transient failures until the function is done", async () => {
    const fn = answering(conflict("stale"), retry("nats down"), done("applied"));
    const outcome = await deliverWithRetries(fn, clusterEvent(), offlineDeps(), {
      signal: new AbortController().signal,
      policy: fast,
    });
    expect(outcome).toEqual(done("applied"));
    expect(fn.calls).toBe(3);
  });

  it("gives up after the last retry with the last answer, as the Broker dead-letters", async () => {
    const fn = answering(retry("1"), retry("2"), retry("3"), retry("4"), retry("5"));
    const outcome = await deliverWithRetries(fn, clusterEvent(), offlineDeps(), {
      signal: new AbortController().signal,
      policy: fast,
    });
    expect(outcome).toEqual(retry("4"));
    expect(fn.calls).toBe(4);
  });

  it("stops redelivering once aborted", async () => {
    const abort = new AbortController();
    const fn = answering(retry("1"), retry("2"));
    const delivery = deliverWithRetries(fn, clusterEvent(), offlineDeps(), {
      signal: abort.signal,
      policy: { retries: 10, backoffMs: 60_000 },
    });
    abort.abort();
    await delivery;
    expect(fn.calls).toBe(1);
  });

  it("records each attempt to the event log before handling it, redeliveries included, as replay reads it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "delivery-log-"));
    const eventLog = join(dir, "events.jsonl");
    const sent = clusterEvent();
    await deliverWithRetries(answering(retry("nats down"), done()), sent, offlineDeps(), {
      signal: new AbortController().signal,
      policy: fast,
      eventLog,
    });
    const recorded = await readEventLog(eventLog);
    expect(recorded.map((e) => [e.id, e.type, e["name"]])).toEqual([
      [sent.id, sent.type, "demo"],
      [sent.id, sent.type, "demo"],
    ]);
    await rm(dir, { recursive: true, force: true });
  });
});
