// The chart ships the generated CRDs unchanged: chart/crds/ must equal crds/ (Helm reads CRDs only
// from inside the chart). A change to the API regenerates crds/; then run scripts/copy-chart-crds.ts.
import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chartCrdDrift, copyChartCrds } from "./copy-chart-crds.ts";

describe("chart/crds", () => {
  it("holds exactly the CRDs in crds/, byte for byte", () => {
    expect(chartCrdDrift()).toEqual([]);
  });

  it("is repaired by the copy: a changed, a missing and a stale file", () => {
    const repo = mkdtempSync(join(tmpdir(), "chart-crds-"));
    mkdirSync(join(repo, "crds"));
    mkdirSync(join(repo, "chart", "crds"), { recursive: true });
    writeFileSync(join(repo, "crds", "a.yaml"), "kind: A\n");
    writeFileSync(join(repo, "crds", "b.yaml"), "kind: B\n");
    writeFileSync(join(repo, "chart", "crds", "a.yaml"), "kind: old\n");
    writeFileSync(join(repo, "chart", "crds", "gone.yaml"), "kind: Gone\n");
    expect(chartCrdDrift(repo)).toEqual([
      { file: "a.yaml", problem: "differs from crds" },
      { file: "b.yaml", problem: "missing from chart/crds" },
      { file: "gone.yaml", problem: "not in crds" },
    ]);
    expect(copyChartCrds(repo)).toHaveLength(3);
    expect(chartCrdDrift(repo)).toEqual([]);
    expect(readFileSync(join(repo, "chart", "crds", "a.yaml"), "utf8")).toBe("kind: A\n");
    expect(existsSync(join(repo, "chart", "crds", "gone.yaml"))).toBe(false);
  });
});
