import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CloudEvent } from "cloudevents";
import { clusterEvent } from "../../test/support/events.ts";
import { offlineDeps, scriptedFunction } from "../../test/support/functions.ts";
import type { FunctionCatalog } from "../runtime/catalog.ts";
import type { OperatorFunction } from "../runtime/function.ts";
import { done, retry, type Outcome } from "../runtime/outcome.ts";
import { startServer, type RunningServer } from "../runtime/server.ts";
import { replayCommand } from "./replay-command.ts";

let dir: string;
let server: RunningServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "replay-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function logOf(...events: CloudEvent<unknown>[]): Promise<string> {
  const file = join(dir, "events.jsonl");
  await writeFile(file, events.map((e) => `${JSON.stringify(e.toJSON())}\n`).join(""));
  return file;
}

async function serving(...answers: Outcome[]): Promise<string> {
  server = await startServer({
    functions: [scriptedFunction(async () => answers.shift() ?? done())],
    deps: offlineDeps(),
    port: 0,
    host: "127.0.0.1",
  });
  return `http://127.0.0.1:${server.port}/`;
}

function printed(): { lines: string[]; out: { write(text: string): boolean } } {
  const lines: string[] = [];
  return { lines, out: { write: (text) => lines.push(...text.split("\n").filter(Boolean)) > 0 } };
}

/** A catalog of scripted functions named as the Triggers name them, counting what each receives. */
function catalogOf(...fns: OperatorFunction[]): FunctionCatalog {
  return {
    selectFunctions: () => ({ ok: true, names: fns.map((fn) => fn.name) }),
    loadFunctions: async () => fns,
  };
}

describe("nats-operator replay", () => {
  it("prints one line per delivery: status, target, type, id, and the outcome with its detail", async () => {
    const url = await serving(done("applied"));
    const { lines, out } = printed();
    await replayCommand(catalogOf(), { file: await logOf(clusterEvent()), url, out });
    expect(lines).toEqual([`200 ${url} dev.knative.apiserver.resource.update evt-1 done: applied`]);
  });

  it("exits 0 when every delivery was answered 2xx", async () => {
    const url = await serving(done(), done());
    const file = await logOf(clusterEvent({ id: "a" }), clusterEvent({ id: "b" }));
    expect(await replayCommand(catalogOf(), { file, url, out: printed().out })).toBe(0);
  });

  it("exits 1 when a delivery was not answered 2xx, after replaying the rest", async () => {
    const url = await serving(retry("nats unreachable"), done());
    const { lines, out } = printed();
    const file = await logOf(clusterEvent({ id: "a" }), clusterEvent({ id: "b" }));
    expect(await replayCommand(catalogOf(), { file, url, out })).toBe(1);
    expect(lines).toEqual([
      `503 ${url} dev.knative.apiserver.resource.update a retry: nats unreachable`,
      `200 ${url} dev.knative.apiserver.resource.update b done`,
    ]);
  });

  it("routes each recorded event once to every function whose Trigger passes it, however often it was recorded", async () => {
    const render = scriptedFunction(async () => done(), "render-cluster");
    const step = scriptedFunction(async () => done(), "step-rollout");
    const { lines, out } = printed();
    const file = await logOf(clusterEvent({ id: "a" }), clusterEvent({ id: "a" }), clusterEvent({ id: "b" }));
    expect(await replayCommand(catalogOf(render, step), { file, out })).toBe(0);
    expect([render.calls, step.calls]).toEqual([2, 2]);
    expect(lines.map((line) => line.split(" ").slice(1, 4).join(" ")).sort()).toEqual([
      "render-cluster dev.knative.apiserver.resource.update a",
      "render-cluster dev.knative.apiserver.resource.update b",
      "step-rollout dev.knative.apiserver.resource.update a",
      "step-rollout dev.knative.apiserver.resource.update b",
    ]);
  });

  it("says so for an event no Trigger passes", async () => {
    const { lines, out } = printed();
    const file = await logOf(clusterEvent({ id: "x", type: "com.example.unknown" }));
    expect(await replayCommand(catalogOf(scriptedFunction(async () => done(), "render-cluster")), { file, out })).toBe(
      0,
    );
    expect(lines).toEqual(["--- (no trigger) com.example.unknown x"]);
  });
});
