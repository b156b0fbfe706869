// The generated CRDs are structural and self-describing: every field typed and
// described, list-map keys present, transition rules only where the API server
// can correlate old and new values, printer columns and categories in place.
import { describe, expect, it } from "@jest/globals";
import { KIND_NAMES, KINDS } from "../../../shared/api/kinds.ts";
import { KIND_DEFINITIONS } from "../../../shared/api/definitions.ts";
import { openApiSchema, customResourceDefinition } from "../../../shared/api/codegen/crd.ts";
import { walkFields, collectRules, type SchemaNode } from "../../../shared/api/codegen/schema-walk.ts";

const schemaOf = (kind: (typeof KIND_NAMES)[number]) => openApiSchema(KIND_DEFINITIONS[kind]) as SchemaNode;

const FORBIDDEN_KEYWORDS = [
  "$ref",
  "patternProperties",
  "const",
  "oneOf",
  "allOf",
  "not",
  "definitions",
  "$schema",
  "$id",
];

describe.each(KIND_NAMES)("%s CRD schema", (kind) => {
  const root = schemaOf(kind);
  const fields: { path: string; schema: SchemaNode; required: boolean; role: string }[] = [];
  walkFields(root, (f) => fields.push(f));
  const below = fields.filter((f) => f.path !== "metadata" && !f.path.startsWith("metadata."));

  it("types and describes every field", () => {
    const untyped = below.filter(
      (f) =>
        typeof f.schema["type"] !== "string" &&
        f.schema["x-kubernetes-int-or-string"] !== true &&
        f.schema["x-kubernetes-preserve-unknown-fields"] !== true,
    );
    expect(untyped.map((f) => f.path)).toEqual([]);
    const undescribed = below.filter(
      (f) => f.role !== "value" && (typeof f.schema["description"] !== "string" || f.schema["description"] === ""),
    );
    expect(undescribed.map((f) => f.path)).toEqual([]);
  });

  it("types every list item and map value", () => {
    for (const f of below) {
      for (const key of ["items", "additionalProperties"]) {
        const inner = f.schema[key] as SchemaNode | undefined;
        if (inner === undefined) continue;
        const typed = typeof inner["type"] === "string" || inner["x-kubernetes-int-or-string"] === true;
        expect([f.path, key, typed]).toEqual([f.path, key, true]);
      }
    }
  });

  it("keeps unknown fields only in the free-form pod spec", () => {
    const open = below.filter((f) => f.schema["x-kubernetes-preserve-unknown-fields"] === true).map((f) => f.path);
    expect(open).toEqual(kind === "NatsCluster" ? ["spec.podTemplate.spec"] : []);
  });

  it("uses no JSON Schema keyword the API server refuses", () => {
    const text = JSON.stringify(root);
    for (const keyword of FORBIDDEN_KEYWORDS)
      expect([keyword, text.includes(`"${keyword}":`)]).toEqual([keyword, false]);
  });

  it("uses anyOf only for quantities", () => {
    for (const f of below)
      if (f.schema["anyOf"] !== undefined) expect(f.schema["x-kubernetes-int-or-string"]).toBe(true);
  });

  it("requires the keys of every list-map in its items", () => {
    for (const f of below.filter((x) => x.schema["x-kubernetes-list-type"] === "map")) {
      const items = f.schema["items"] as SchemaNode;
      const required = (items["required"] as string[] | undefined) ?? [];
      for (const key of f.schema["x-kubernetes-list-map-keys"] as string[])
        expect([f.path, key, required.includes(key)]).toEqual([f.path, key, true]);
    }
  });

  it("puts transition rules only where old and new values correlate", () => {
    const listTypes = new Map(below.map((f) => [f.path, f.schema["x-kubernetes-list-type"]]));
    for (const rule of collectRules(root).filter((r) => r.rule.includes("oldSelf"))) {
      const segments = rule.path.split("[]");
      segments.pop();
      let prefix = "";
      for (const segment of segments) {
        prefix += segment;
        expect([rule.path, listTypes.get(prefix)]).toEqual([rule.path, "map"]);
        prefix += "[]";
      }
    }
  });

  it("requires spec", () => {
    expect(root["required"]).toEqual(["spec"]);
  });

  it("prints Ready, Reason and Age (Age alone without status) and lists the kind in its categories", () => {
    const crd = customResourceDefinition(KIND_DEFINITIONS[kind]) as {
      spec: {
        names: { categories: string[] };
        versions: { additionalPrinterColumns: { name: string }[]; subresources?: unknown }[];
      };
    };
    const [version] = crd.spec.versions;
    if (!version) throw new Error("no version");
    const columns = version.additionalPrinterColumns.map((c) => c.name);
    expect(columns).toContain("Age");
    if (KINDS[kind].hasStatus) {
      expect(columns).toEqual(expect.arrayContaining(["Ready", "Reason"]));
      expect(version.subresources).toEqual({ status: {} });
    } else {
      expect(version.subresources).toBeUndefined();
    }
    expect(crd.spec.names.categories).toContain("nats");
  });
});
