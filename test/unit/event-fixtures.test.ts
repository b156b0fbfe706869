import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { CloudEvent } from "cloudevents";
import { functionNames, loadFunctions } from "../../functions/catalog.ts";
import { postEvent } from "../../shared/local/replay.ts";
import { startServer, type RunningServer } from "../../shared/runtime/server.ts";
import { offlineDeps } from "../support/functions.ts";
import { memoryKube } from "../support/memory-kube.ts";

interface FixtureEntry {
  file: string;
  function: string;
  status: number;
  why: string;
}

const dir = new URL("../fixtures/events/", import.meta.url);
const index = JSON.parse(readFileSync(new URL("index.json", dir), "utf8")) as FixtureEntry[];
let server: RunningServer;

beforeAll(async () => {
  // An empty cluster: the objects the fixtures name do not exist (any more).
  const kube = memoryKube();
  const deps = { ...offlineDeps(), kube: async () => kube };
  server = await startServer({ functions: await loadFunctions(functionNames), deps, port: 0, host: "127.0.0.1" });
});
afterAll(() => server.close());

describe("replaying the event fixtures through the HTTP server", () => {
  it.each(index.map((entry) => [entry.file, entry] as const))(
    "%s gets its documented response",
    async (_file, entry) => {
      const ce = new CloudEvent<unknown>(
        JSON.parse(readFileSync(new URL(entry.file, dir), "utf8")) as Record<string, unknown>,
        false,
      );
      const result = await postEvent(`http://127.0.0.1:${server.port}/${entry.function}`, ce, "structured");
      expect(result.status).toBe(entry.status);
    },
  );
});
