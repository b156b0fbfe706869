// Renders docs/reference/api.md from the kind definitions and constants.
import { API_GROUPS, type ApiGroupKey } from "../groups.ts";
import { KIND_NAMES } from "../kinds.ts";
import { KIND_DEFINITIONS } from "../definitions.ts";
import { CONDITION_VOCABULARY } from "../constants/vocabulary.ts";
import {
  CLUSTER_ANNOTATIONS,
  CREDS_DIGEST_ANNOTATION,
  RENDERED_ANNOTATIONS,
  GENERATED_FOR_ANNOTATION,
} from "../constants/annotations.ts";
import { LABELS } from "../constants/labels.ts";
import { FINALIZERS } from "../constants/finalizers.ts";
import { JETSTREAM_METADATA } from "../constants/jetstream-metadata.ts";
import type { KindDefinition } from "../common/kind-definition.ts";
import { openApiSchema } from "./crd.ts";
import { walkFields, typeName, collectRules, type SchemaNode } from "./schema-walk.ts";

const GROUP_TITLES: Record<ApiGroupKey, string> = {
  core: "shared plumbing: trusts, connections, reference grants",
  cluster: "NATS clusters",
  auth: "NATS operators, accounts and users",
  jetstream: "JetStream objects, balancers and evacuations",
};

/** Escapes text for a Markdown table cell. */
const cell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => `\`${text.replace(/\|/g, "\\|")}\``;

const constraints = (node: SchemaNode): string[] => {
  const out: string[] = [];
  const pick = (key: string, label: string) => {
    if (node[key] !== undefined) out.push(`${label} ${String(node[key])}`);
  };
  pick("minimum", "min");
  pick("maximum", "max");
  pick("minLength", "minLength");
  pick("maxLength", "maxLength");
  pick("minItems", "minItems");
  pick("maxItems", "maxItems");
  if (typeof node["pattern"] === "string" && typeName(node) === "string") out.push(`pattern ${code(node["pattern"])}`);
  if (typeof node["x-kubernetes-list-type"] === "string") {
    const keys = node["x-kubernetes-list-map-keys"];
    out.push(`list ${node["x-kubernetes-list-type"]}${Array.isArray(keys) ? ` by ${keys.join(", ")}` : ""}`);
  }
  return out;
};

const fieldTable = (title: string, root: SchemaNode, base: string): string[] => {
  const lines = [`#### ${title}`, "", "| Field | Type | Default | Description |", "|---|---|---|---|"];
  walkFields(root, ({ path, schema, required, role }) => {
    if (role === "value" && schema["description"] === undefined) return;
    const values = Array.isArray(schema["enum"])
      ? ` Values: ${schema["enum"].map((v) => code(String(v))).join(", ")}.`
      : "";
    const limits = constraints(schema);
    const extra = limits.length > 0 ? ` (${limits.join("; ")})` : "";
    const fallback = schema["default"] === undefined ? "" : code(JSON.stringify(schema["default"]));
    lines.push(
      `| ${code(`${base}.${path}`)}${required ? " *(required)*" : ""} | ${typeName(schema)} | ${fallback} | ` +
        `${cell(String(schema["description"] ?? ""))}${cell(values)}${cell(extra)} |`,
    );
  });
  return [...lines, ""];
};

const rulesTable = (schema: SchemaNode): string[] => {
  const rules = collectRules(schema);
  if (rules.length === 0) return [];
  const lines = ["#### Validation rules", "", "| On | Refused with | Rule | On update only |", "|---|---|---|---|"];
  for (const r of rules) {
    const where = r.path === "" ? "(object)" : code(r.path);
    lines.push(`| ${where} | ${cell(r.message)} | ${code(r.rule)} | ${r.rule.includes("oldSelf") ? "yes" : ""} |`);
  }
  return [...lines, ""];
};

const conditionsTable = (def: KindDefinition): string[] => {
  const vocabulary = CONDITION_VOCABULARY[def.info.kind as keyof typeof CONDITION_VOCABULARY];
  const entries = Object.entries(vocabulary ?? {});
  if (entries.length === 0) return [];
  const lines = ["#### Conditions", "", "| Type | Reasons |", "|---|---|"];
  for (const [type, reasons] of entries) lines.push(`| ${code(type)} | ${(reasons ?? []).map(code).join(", ")} |`);
  return [...lines, ""];
};

const kindSection = (def: KindDefinition): string[] => {
  const { info } = def;
  const schema = openApiSchema(def) as SchemaNode;
  const properties = schema["properties"] as Record<string, SchemaNode>;
  const spec = properties["spec"];
  const status = properties["status"];
  const lines = [
    `### ${info.kind}`,
    "",
    def.description,
    "",
    `- apiVersion: ${code(info.apiVersion)}, plural ${code(info.plural)}, short names ${info.shortNames.map(code).join(", ")}`,
    `- categories: ${info.categories.map(code).join(", ")}; status subresource: ${info.hasStatus ? "yes" : "no"}`,
    `- printer columns: ${def.columns.map((c) => `${c.name} (${code(c.jsonPath)})`).join(", ")}`,
    ...(def.selectableFields && def.selectableFields.length > 0
      ? [
          `- selectable fields (\`kubectl get --field-selector\`, Kubernetes 1.32 or newer): ${def.selectableFields
            .map((f) => code(f.jsonPath.slice(1)))
            .join(", ")}`,
        ]
      : []),
    ...(def.metadataName
      ? [`- name: at most ${def.metadataName.maxLength} characters, because ${def.metadataName.why}`]
      : []),
    "",
  ];
  if (spec) lines.push(...fieldTable("Spec", spec, "spec"));
  lines.push(...rulesTable(schema));
  if (status) lines.push(...fieldTable("Status", status, "status"));
  lines.push(...conditionsTable(def));
  return lines;
};

const keyTable = (title: string, entries: Record<string, string>): string[] => [
  `### ${title}`,
  "",
  ...Object.values(entries).map((value) => `- ${code(value)}`),
  "",
];

/** The whole reference document. */
export const renderReferenceDoc = (): string => {
  const lines = [
    "<!-- Generated by scripts/generate-api.ts from shared/api; do not edit. -->",
    "",
    "# API reference",
    "",
    "Every kind is namespaced and served at `v1beta1`. `kubectl get nats` lists objects of every kind; " +
      "`nats-core`, `nats-cluster`, `nats-auth` and `nats-jetstream` list one group each.",
    "",
  ];
  for (const groupKey of Object.keys(API_GROUPS) as ApiGroupKey[]) {
    lines.push(`## ${API_GROUPS[groupKey]}: ${GROUP_TITLES[groupKey]}`, "");
    for (const name of KIND_NAMES) {
      const def = KIND_DEFINITIONS[name];
      if (def.info.groupKey === groupKey) lines.push(...kindSection(def));
    }
  }
  lines.push(
    "## Annotations, labels, finalizers",
    "",
    ...keyTable("NatsCluster annotations", CLUSTER_ANNOTATIONS),
    ...keyTable("Annotations on rendered objects", RENDERED_ANNOTATIONS),
    ...keyTable("Generated seed Secrets", { generatedFor: GENERATED_FOR_ANNOTATION }),
    ...keyTable("Creds Secrets", { credsDigest: CREDS_DIGEST_ANNOTATION }),
    ...keyTable("Labels", LABELS),
    ...keyTable("Finalizers", FINALIZERS),
    ...keyTable("JetStream ownership metadata", JETSTREAM_METADATA),
  );
  return `${lines.join("\n").trimEnd()}\n`;
};
