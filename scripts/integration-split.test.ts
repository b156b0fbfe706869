import { describe, expect, it } from "@jest/globals";
import {
  durationsFromReport,
  formatDurations,
  integrationFiles,
  readDurations,
  runsOnRealNode,
  split,
} from "./integration-split.ts";

describe("integration split", () => {
  it("puts the longest first onto the lighter side", () => {
    const groups = split(["a", "b", "c", "d", "e"], { a: 10, b: 6, c: 5, d: 4, e: 1 }, 2);
    expect(groups).toEqual([
      { files: ["a", "d"], seconds: 14 },
      { files: ["b", "c", "e"], seconds: 12 },
    ]);
  });

  it("gives a file the table does not name the default, and keeps the files `together` on one side", () => {
    const groups = split(["k1", "x", "k2", "new"], { k1: 30, k2: 30, x: 100 }, 2, (f) => f.startsWith("k"));
    expect(groups.map((g) => g.files)).toEqual([["x"], ["new", "k1", "k2"]]);
    expect(groups.map((g) => g.seconds)).toEqual([100, 120]);
  });

  it("reads seconds per repo-relative file from a Jest report", () => {
    const report = {
      testResults: [
        { name: "/repo/test/integration/a.test.ts", startTime: 1_000, endTime: 62_600 },
        { name: "/repo/test/integration/b.test.ts", perfStats: { start: 0, end: 4_400 } },
      ],
    };
    expect(durationsFromReport(report, "/repo")).toEqual({
      "test/integration/a.test.ts": 62,
      "test/integration/b.test.ts": 4,
    });
    expect(formatDurations({ b: 2, a: 1 })).toBe('{\n  "a": 1,\n  "b": 2\n}\n');
  });

  it("finds the files that ask for the real node by their marker line", () => {
    expect(integrationFiles().filter((f) => runsOnRealNode(f))).toContain("test/integration/node/real-node.test.ts");
    expect(runsOnRealNode("test/integration/harness/kubelet-translation.test.ts")).toBe(false);
  });

  it("has a duration for every integration test file", () => {
    const table = readDurations();
    expect(integrationFiles().filter((f) => table[f] === undefined)).toEqual([]);
    expect(Object.keys(table).filter((f) => !integrationFiles().includes(f))).toEqual([]);
  });
});
