import { describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { gatherReplies } from "./request.ts";

/**
 * A connection whose replies the test hands in one by one, and whose flush (the PING a gather
 * sends at its deadline) answers only when the test says so.
 */
function fakeConnection() {
  const queued: { json<T>(): T }[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let pong: (() => void) | undefined;
  let flushes = 0;
  const sub = {
    unsubscribe() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = queued.shift();
        if (next) yield next;
        else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    },
  };
  const nc = {
    subscribe: () => sub,
    publish: () => undefined,
    flush: () => {
      flushes++;
      return new Promise<void>((r) => (pong = r));
    },
  } as unknown as NatsConnection;
  return {
    nc,
    reply(body: object) {
      queued.push({ json: <T>() => body as T });
      wake?.();
    },
    answerFlush: () => pong?.(),
    flushes: () => flushes,
  };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A STATSZ gather over `nc`, with the given completion test and wait. */
const gatherStatsz = (nc: NatsConnection, complete: (got: readonly { id: string }[]) => boolean, timeoutMs: number) =>
  gatherReplies<{ id: string }>(
    nc,
    "$SYS.REQ.SERVER.PING.STATSZ",
    {},
    { inboxPrefix: "_INBOX.test", complete, timeoutMs },
  );

describe("gathering replies", () => {
  it("keeps a reply read after the wait but before the server's PONG (sent in time, read late)", async () => {
    const fake = fakeConnection();
    const gathered = gatherStatsz(fake.nc, () => false, 200);
    fake.reply({ id: "a" });
    while (fake.flushes() === 0) await tick(1);
    fake.reply({ id: "b" });
    await tick(5);
    fake.answerFlush();
    expect((await gathered).map((r) => r.id)).toEqual(["a", "b"]);
  });

  it("ends a second wait after the deadline when the server never answers the flush", async () => {
    const fake = fakeConnection();
    const started = Date.now();
    const replies = await gatherStatsz(fake.nc, () => false, 20);
    expect(replies).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  it("ends at once, with no flush, when every expected server answered", async () => {
    const fake = fakeConnection();
    const gathered = gatherStatsz(fake.nc, (got) => got.length === 1, 10_000);
    fake.reply({ id: "a" });
    expect((await gathered).map((r) => r.id)).toEqual(["a"]);
    expect(fake.flushes()).toBe(0);
  });
});
