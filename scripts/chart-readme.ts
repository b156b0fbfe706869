// Writes chart/README.md from chart/values.schema.json, so the values it lists cannot drift from
// what the chart accepts. `npm run generate` runs it:
//   node scripts/chart-readme.ts           write chart/README.md
//   node scripts/chart-readme.ts --check   write nothing; exit 1 when chart/README.md is stale
// scripts/check-generated.ts runs the check too, and scripts/chart-readme.test.ts with the unit tests.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const CHART_README_PATH = "chart/README.md";
export const VALUES_SCHEMA_PATH = "chart/values.schema.json";

/** The part of JSON Schema values.schema.json uses. */
export interface ValueSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, ValueSchema>;
  additionalProperties?: boolean | ValueSchema;
  items?: ValueSchema;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  minimum?: number;
  maximum?: number;
}

export interface ValueRow {
  key: string;
  type: string;
  constraints: string;
  description: string;
}

const typeName = (schema: ValueSchema): string => {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 1 && types[0] === "array") return `[]${schema.items ? typeName(schema.items) : "any"}`;
  if (types.length === 1 && types[0] === "object" && typeof schema.additionalProperties === "object")
    return `map of ${typeName(schema.additionalProperties)}`;
  return types.length > 0 ? types.join(" or ") : "any";
};

const constraintsOf = (schema: ValueSchema): string =>
  [
    schema.enum ? `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}` : "",
    schema.pattern ? `pattern \`${schema.pattern}\`` : "",
    schema.minLength === 1 ? "not empty" : schema.minLength ? `at least ${schema.minLength} characters` : "",
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : "",
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : "",
  ]
    .filter(Boolean)
    .join("; ");

/**
 * An object is listed value by value when it has its own keys and is not a described Kubernetes
 * shape (resources, affinity) whose keys carry no description of their own.
 */
const opened = (schema: ValueSchema): boolean => {
  const children = Object.values(schema.properties ?? {});
  if (children.length === 0) return false;
  return schema.description === undefined || children.some((c) => c.description !== undefined);
};

/** Keys whose schemas are the same but for their own name (the functions): listed once as <name>. */
const sameButName = (properties: Record<string, ValueSchema>): boolean => {
  const keys = Object.keys(properties);
  if (keys.length < 2 || !keys.every((k) => properties[k]?.properties !== undefined)) return false;
  const shapes = keys.map((k) => JSON.stringify(properties[k]).split(k).join("<name>"));
  return shapes.every((s) => s === shapes[0]);
};

/** One row per value, depth first, in the schema's order. */
export function valueRows(schema: ValueSchema, prefix = ""): ValueRow[] {
  const properties = schema.properties ?? {};
  if (prefix !== "" && sameButName(properties)) {
    const [first = ""] = Object.keys(properties);
    const one = JSON.parse(JSON.stringify(properties[first]).split(first).join("<name>")) as ValueSchema;
    return rowsOf(`${prefix}<name>`, one);
  }
  return Object.entries(properties).flatMap(([key, child]) => rowsOf(`${prefix}${key}`, child));
}

const rowsOf = (key: string, schema: ValueSchema): ValueRow[] =>
  opened(schema)
    ? [
        ...(schema.description ? [{ key, type: "object", constraints: "", description: schema.description }] : []),
        ...valueRows(schema, `${key}.`),
      ]
    : [{ key, type: typeName(schema), constraints: constraintsOf(schema), description: schema.description ?? "" }];

/** Table-safe text; outside code, `<name>` would read as an HTML tag. */
const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const prose = (text: string): string => cell(text).replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** Names of the keys a `<name>` row stands for, by the path before it. */
const namesFor = (schema: ValueSchema, path: string[]): string[] => {
  const node = path.reduce<ValueSchema | undefined>((s, k) => s?.properties?.[k], schema);
  return Object.keys(node?.properties ?? {});
};

export function renderChartReadme(schema: ValueSchema): string {
  const rows = valueRows(schema);
  const collapsed = [...new Set(rows.filter((r) => r.key.includes("<name>")).map((r) => r.key.split(".<name>")[0]))];
  const table = [
    "| Value | Type | Constraints | Description |",
    "| --- | --- | --- | --- |",
    ...rows.map((r) => `| \`${cell(r.key)}\` | ${cell(r.type)} | ${cell(r.constraints)} | ${prose(r.description)} |`),
  ];
  const names = collapsed.map(
    (path) =>
      `\`<name>\` under \`${path}\` is one of ${namesFor(schema, (path ?? "").split("."))
        .map((n) => `\`${n}\``)
        .join(", ")}.`,
  );
  return `<!-- Generated by scripts/chart-readme.ts from chart/values.schema.json; do not edit. -->
# nats-operator Helm chart

A NATS operator for Kubernetes whose controllers are short-lived functions on Knative. The chart
installs the CRDs, the Knative Broker, Triggers, ApiServerSources and resync PingSources, and one
Knative Service per function, each with its own ServiceAccount and least-privilege ClusterRole.

Needs Kubernetes 1.32+, Knative Serving and Knative Eventing 1.15+.

\`\`\`sh
helm install nats-operator ./chart -n nats-operator --create-namespace
\`\`\`

Helm never upgrades the CRDs in \`crds/\`: before \`helm upgrade\`, run
\`kubectl apply --server-side --force-conflicts -f chart/crds/\` ([docs/upgrade.md](../docs/upgrade.md)).
\`helm uninstall\` keeps the CRDs and your objects. When something is wrong, start at
[docs/troubleshooting.md](../docs/troubleshooting.md).

## Values

\`values.schema.json\` refuses unknown keys and wrong types; [values.yaml](values.yaml) holds the
defaults and [docs/install.md](../docs/install.md#values) explains the values in context.
${names.length > 0 ? `\n${names.join("\n")}\n` : ""}
${table.join("\n")}

Licensed under Apache-2.0.
`;
}

/** What chart/README.md should hold, from the schema under \`repo\`. */
export const expectedChartReadme = (repo: string = root): string =>
  renderChartReadme(JSON.parse(readFileSync(join(repo, VALUES_SCHEMA_PATH), "utf8")) as ValueSchema);

/** Whether chart/README.md under `repo` is what the schema renders to. */
export const chartReadmeStale = (repo: string = root): boolean => {
  const path = join(repo, CHART_README_PATH);
  return !existsSync(path) || readFileSync(path, "utf8") !== expectedChartReadme(repo);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const stale = chartReadmeStale();
    if (stale) console.error(`${CHART_README_PATH}: differs; run \`npm run generate\` and commit the result`);
    process.exitCode = stale ? 1 : 0;
  } else {
    writeFileSync(join(root, CHART_README_PATH), expectedChartReadme());
    console.log(`wrote ${CHART_README_PATH}`);
  }
}
