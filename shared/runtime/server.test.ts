import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeRequestError } from "../kube/errors.ts";
import { clusterEvent } from "../../test/support/events.ts";
import { offlineDeps, scriptedFunction } from "../../test/support/functions.ts";
import { postEvent, readEventLog } from "../local/replay.ts";
import { conflict, done, retry, type Outcome } from "./outcome.ts";
import { startServer, type RunningServer } from "./server.ts";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serving(answer: () => Promise<Outcome>) {
  const fn = scriptedFunction(answer);
  server = await startServer({ functions: [fn], deps: offlineDeps(), port: 0, host: "127.0.0.1" });
  return { fn, url: `http://127.0.0.1:${server.port}/` };
}

describe("the CloudEvents server", () => {
  it("accepts a binary-mode event and answers 200 when the function is done", async () => {
    const { url } = await serving(async () => done("applied"));
    const result = await postEvent(url, clusterEvent(), "binary");
    expect(result.status).toBe(200);
  });

  it("answers a handled event with an empty body, which the Broker would otherwise take for a reply event", async () => {
    const { url } = await serving(async () => done("applied"));
    const response = await postEvent(url, clusterEvent());
    expect([response.status, response.body]).toEqual([200, ""]);
    // The outcome and detail headers, as postEvent reads them.
    expect([response.outcome, response.detail]).toEqual(["done", "applied"]);
  });

  it("records every event it receives to the event log, in the form `nats-operator replay` reads", async () => {
    const dir = await mkdtemp(join(tmpdir(), "event-log-"));
    const eventLog = join(dir, "events.jsonl");
    server = await startServer({
      functions: [scriptedFunction(async () => done())],
      deps: offlineDeps(),
      port: 0,
      host: "127.0.0.1",
      eventLog,
    });
    const sent = clusterEvent();
    await postEvent(`http://127.0.0.1:${server.port}/`, sent, "binary");
    const recorded = await readEventLog(eventLog);
    expect(recorded.map((e) => [e.id, e.type, e["name"]])).toEqual([[sent.id, sent.type, "demo"]]);
    await rm(dir, { recursive: true, force: true });
  });

  it("answers and records no URL credentials: the Broker logs answers and dead-letters their bodies", async () => {
    const dir = await mkdtemp(join(tmpdir(), "event-log-"));
    const eventLog = join(dir, "events.jsonl");
    server = await startServer({
      functions: [scriptedFunction(async () => retry("cannot connect to nats://user:pass@host:4222"))],
      deps: offlineDeps(),
      port: 0,
      host: "127.0.0.1",
      eventLog,
    });
    const sent = clusterEvent();
    const leaking = sent.cloneWith({ data: { spec: { servers: ["nats://user:pass@host:4222"] } } }, false);
    const result = await postEvent(`http://127.0.0.1:${server.port}/`, leaking, "binary");
    expect(result.status).toBe(503);
    expect(JSON.stringify(result)).not.toContain("user:pass");
    expect(JSON.stringify(result)).toContain("nats://***@host:4222");
    expect(JSON.stringify(await readEventLog(eventLog))).not.toContain("user:pass");
    await rm(dir, { recursive: true, force: true });
  });

  it("accepts a structured-mode event", async () => {
    const { url } = await serving(async () => done());
    expect((await postEvent(url, clusterEvent(), "structured")).status).toBe(200);
  });

  it.each([
    ["409 for an optimistic-concurrency conflict", async () => conflict("stale resourceVersion"), 409],
    ["503 for a transient failure", async () => retry("nats unreachable"), 503],
    [
      "409 when the API server reports a conflict",
      async () => Promise.reject(new KubeRequestError(409, "Conflict", "the object has been modified")),
      409,
    ],
    [
      "503 when the API server is unavailable",
      async () => Promise.reject(new KubeRequestError(0, "NetworkError", "ECONNREFUSED")),
      503,
    ],
    ["503 when the function throws", async () => Promise.reject(new Error("boom")), 503],
  ])("answers %s", async (_what, answer, status) => {
    const { url } = await serving(answer);
    expect((await postEvent(url, clusterEvent())).status).toBe(status);
  });

  it("answers 400 with a message for a request that is not a CloudEvent", async () => {
    const { url } = await serving(async () => done());
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/not a CloudEvent/);
  });

  it("answers 400 for an event that names no object, without calling the function", async () => {
    const { fn, url } = await serving(async () => done());
    const result = await postEvent(url, clusterEvent({ name: undefined, namespace: undefined }, {}));
    expect(result.status).toBe(400);
    expect(result.body).toMatch(/missing namespace, name/);
    expect(fn.calls).toBe(0);
  });

  it("acknowledges a kind the function does not handle with 202", async () => {
    const { fn, url } = await serving(async () => done());
    const result = await postEvent(
      url,
      clusterEvent({ kind: "NatsStream", apiversion: "jetstream.nats-operator.io/v1beta1" }),
    );
    expect(result.status).toBe(202);
    expect(fn.calls).toBe(0);
  });

  it("drops the echo of a status write without calling the function", async () => {
    const { fn, url } = await serving(async () => done());
    const echo = clusterEvent({}, { metadata: { name: "demo", generation: 2 }, status: { observedGeneration: 2 } });
    expect((await postEvent(url, echo)).status).toBe(202);
    expect(fn.calls).toBe(0);
  });

  it("serves health without touching NATS or the API server", async () => {
    await serving(async () => done());
    for (const path of ["/healthz", "/health/liveness", "/health/readiness"]) {
      expect((await fetch(`http://127.0.0.1:${server?.port}${path}`)).status).toBe(200);
    }
  });

  it("lets an in-flight event finish when closing", async () => {
    let release: () => void = () => {};
    const { url } = await serving(() => new Promise<Outcome>((resolve) => (release = () => resolve(done("finished")))));
    const pending = postEvent(url, clusterEvent());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = server?.close();
    server = undefined;
    release();
    const result = await pending;
    await closing;
    expect(result.status).toBe(200);
  });
});
