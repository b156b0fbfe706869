// Walks a structural schema field by field, for documentation and tests.
import type { Json } from "./json.ts";
import { DURATION_PATTERN } from "../common/formats.ts";

export type SchemaNode = { [key: string]: Json };

export interface FieldVisit {
  /** Dotted path below the root, with `[]` for list items and `{}` for map values (e.g. `remotes[].name`). */
  readonly path: string;
  readonly schema: SchemaNode;
  readonly required: boolean;
  /** A named property, a list item (`[]`) or a map value (`{}`). */
  readonly role: "property" | "item" | "value";
}

const asNode = (value: Json | undefined): SchemaNode | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;

/** Calls `visit` for every property, list item and map value below `root` (not `root` itself), depth first in key order. */
export const walkFields = (root: SchemaNode, visit: (field: FieldVisit) => void, prefix = ""): void => {
  const properties = asNode(root["properties"]);
  const required = new Set(Array.isArray(root["required"]) ? (root["required"] as string[]) : []);
  if (properties) {
    for (const name of Object.keys(properties).sort()) {
      const child = asNode(properties[name]);
      if (!child) continue;
      const path = prefix ? `${prefix}.${name}` : name;
      visit({ path, schema: child, required: required.has(name), role: "property" });
      walkFields(child, visit, path);
    }
  }
  const items = asNode(root["items"]);
  if (items) {
    visit({ path: `${prefix}[]`, schema: items, required: false, role: "item" });
    walkFields(items, visit, `${prefix}[]`);
  }
  const values = asNode(root["additionalProperties"]);
  if (values) {
    visit({ path: `${prefix}{}`, schema: values, required: false, role: "value" });
    walkFields(values, visit, `${prefix}{}`);
  }
};

/** A short human name for the type of a schema node. */
export const typeName = (node: SchemaNode): string => {
  if (node["x-kubernetes-int-or-string"] === true) return "quantity";
  if (node["x-kubernetes-preserve-unknown-fields"] === true) return "object (free-form)";
  const type = node["type"];
  if (type === "string") {
    if (node["format"] === "date-time") return "time";
    if (node["pattern"] === DURATION_PATTERN) return "duration";
    if (Array.isArray(node["enum"])) return "enum";
    return "string";
  }
  if (type === "integer") return node["format"] === "int32" ? "int32" : "int64";
  if (type === "array") {
    const items = asNode(node["items"]);
    return `[]${items ? typeName(items) : "?"}`;
  }
  if (type === "object") {
    const values = asNode(node["additionalProperties"]);
    return values ? `map[string]${typeName(values)}` : "object";
  }
  return typeof type === "string" ? type : "?";
};

export interface RuleVisit {
  readonly path: string;
  readonly rule: string;
  readonly message: string;
}

/** Every CEL rule in a schema, with the path of the node holding it ("" for the root). */
export const collectRules = (root: SchemaNode): RuleVisit[] => {
  const rules: RuleVisit[] = [];
  const take = (node: SchemaNode, path: string) => {
    const list = node["x-kubernetes-validations"];
    if (!Array.isArray(list)) return;
    for (const entry of list) {
      const r = asNode(entry);
      if (r) rules.push({ path, rule: String(r["rule"]), message: String(r["message"]) });
    }
  };
  take(root, "");
  walkFields(root, ({ path, schema }) => take(schema, path));
  return rules;
};
