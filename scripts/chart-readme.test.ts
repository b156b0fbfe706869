// chart/README.md is generated from chart/values.schema.json: a value the schema accepts is
// listed, and a README edited by hand (or a schema changed without `npm run generate`) fails here.
import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chartReadmeStale, expectedChartReadme, renderChartReadme, valueRows } from "./chart-readme.ts";

describe("chart/README.md", () => {
  it("is what values.schema.json renders to", () => {
    expect(chartReadmeStale()).toBe(false);
  });

  it("is stale once the schema gains a value", () => {
    const repo = mkdtempSync(join(tmpdir(), "chart-readme-"));
    mkdirSync(join(repo, "chart"));
    const schema = { type: "object", properties: { a: { type: "string", description: "the a" } } };
    writeFileSync(join(repo, "chart", "values.schema.json"), JSON.stringify(schema));
    writeFileSync(join(repo, "chart", "README.md"), expectedChartReadme(repo));
    expect(chartReadmeStale(repo)).toBe(false);
    writeFileSync(
      join(repo, "chart", "values.schema.json"),
      JSON.stringify({ ...schema, properties: { ...schema.properties, b: { type: "boolean" } } }),
    );
    expect(chartReadmeStale(repo)).toBe(true);
  });

  it("lists same-shaped keys once as <name>, opens undescribed objects and keeps described Kubernetes shapes whole", () => {
    const fn = (name: string) => ({
      type: "object",
      description: `the ${name} function`,
      properties: {
        enabled: { type: "boolean", description: `install ${name}` },
        resources: { type: "object", description: "the container's resources", properties: { limits: {} } },
      },
    });
    const schema = {
      type: "object",
      properties: {
        functions: { type: "object", properties: { one: fn("one"), two: fn("two") } },
        otel: { type: "object", properties: { protocol: { type: "string", enum: ["", "grpc"] } } },
      },
    };
    expect(valueRows(schema)).toEqual([
      { key: "functions.<name>", type: "object", constraints: "", description: "the <name> function" },
      { key: "functions.<name>.enabled", type: "boolean", constraints: "", description: "install <name>" },
      { key: "functions.<name>.resources", type: "object", constraints: "", description: "the container's resources" },
      { key: "otel.protocol", type: "string", constraints: 'one of "", "grpc"', description: "" },
    ]);
    expect(renderChartReadme(schema)).toContain("`<name>` under `functions` is one of `one`, `two`.");
  });
});
