// The generator is deterministic, its committed output is current, every CRD
// parses, and the reference covers every kind, rule and condition.
import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { generatedFiles, REFERENCE_DOC_PATH } from "../../../shared/api/codegen/generated-files.ts";
import { findDrift } from "../../../shared/api/codegen/drift.ts";
import { KIND_NAMES, KINDS } from "../../../shared/api/kinds.ts";
import { KIND_DEFINITIONS } from "../../../shared/api/definitions.ts";
import { openApiSchema } from "../../../shared/api/codegen/crd.ts";
import { collectRules, type SchemaNode } from "../../../shared/api/codegen/schema-walk.ts";
import { CONDITION_VOCABULARY } from "../../../shared/api/constants/vocabulary.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const files = generatedFiles();

describe("generated API files", () => {
  it("are the same on every run", () => {
    expect([...generatedFiles()]).toEqual([...files]);
  });

  it("match the committed files (run `npm run generate` when this fails)", () => {
    expect(findDrift(ROOT, files)).toEqual([]);
  });

  it("hold one CRD per kind, named <group>_<plural>.yaml", () => {
    const crds = [...files.keys()].filter((p) => p.startsWith("crds/"));
    expect(crds.sort()).toEqual(KIND_NAMES.map((k) => `crds/${KINDS[k].group}_${KINDS[k].plural}.yaml`).sort());
  });

  it.each(KIND_NAMES)("parse the %s CRD from disk", (kind) => {
    const info = KINDS[kind];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, probed field by field
    type Parsed = Record<string, any>;
    const crd = parse(readFileSync(join(ROOT, "crds", `${info.group}_${info.plural}.yaml`), "utf8")) as Parsed;
    expect(crd["apiVersion"]).toBe("apiextensions.k8s.io/v1");
    expect(crd["kind"]).toBe("CustomResourceDefinition");
    expect(crd["metadata"].name).toBe(`${info.plural}.${info.group}`);
    expect(crd["spec"].names).toEqual(
      expect.objectContaining({ kind, plural: info.plural, singular: info.singular, listKind: `${kind}List` }),
    );
    expect(crd["spec"].scope).toBe("Namespaced");
    expect(crd["spec"].versions).toHaveLength(1);
    expect(crd["spec"].versions[0]).toEqual(expect.objectContaining({ name: "v1beta1", served: true, storage: true }));
  });

  describe("API reference", () => {
    const doc = files.get(REFERENCE_DOC_PATH) ?? "";

    it.each(KIND_NAMES)("documents %s with its fields, rules and conditions", (kind) => {
      expect(doc).toContain(`### ${kind}\n`);
      for (const rule of collectRules(openApiSchema(KIND_DEFINITIONS[kind]) as SchemaNode)) {
        expect(doc).toContain(rule.message.replace(/\|/g, "\\|"));
      }
      for (const reasons of Object.values(CONDITION_VOCABULARY[kind])) {
        for (const reason of reasons ?? []) expect(doc).toContain(`\`${reason}\``);
      }
    });

    it("lists enum values and defaults", () => {
      expect(doc).toContain("`WorkQueue`");
      expect(doc).toContain('`"48h"`');
      expect(doc).toContain("`spec.jetstream.volumeClaimTemplate.spec.storageClassName`");
    });
  });
});
