import { describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import type { FunctionCatalog } from "../runtime/catalog.ts";
import { createLogger } from "../telemetry/logger.ts";
import { runLocally } from "./local-runner.ts";

const noFunctions: FunctionCatalog = {
  selectFunctions: () => ({ ok: true, names: [] }),
  loadFunctions: async () => [],
};

describe("runLocally", () => {
  it("exits 2 with the reason on a bad NATS_OPERATOR_FAULTS, before starting or reaching for a cluster", async () => {
    const lines: string[] = [];
    const log = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString("utf8"));
          done();
        },
      }),
    });
    let clusterStarted = false;
    const code = await runLocally(noFunctions, log, { NATS_OPERATOR_FAULTS: "drop=2" }, () => {
      clusterStarted = true;
      return 0;
    });
    expect(code).toBe(2);
    expect(clusterStarted).toBe(false);
    expect(lines.map((line) => JSON.parse(line) as { level: string; msg: string })).toEqual([
      expect.objectContaining({
        level: "fatal",
        msg: "NATS_OPERATOR_FAULTS: drop=2: expected a ratio below 1 (0.1 or 10%), or up to 1 with kinds=",
      }),
    ]);
  });
});
