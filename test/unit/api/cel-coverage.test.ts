// Every CEL rule of the API has an accepted and a refused case in the
// integration suite (test/integration/api/cel-cases.ts), and every case names
// a rule that exists.
import { describe, expect, it } from "@jest/globals";
import { KIND_NAMES } from "../../../shared/api/kinds.ts";
import { KIND_DEFINITIONS } from "../../../shared/api/definitions.ts";
import { openApiSchema } from "../../../shared/api/codegen/crd.ts";
import { collectRules, type SchemaNode } from "../../../shared/api/codegen/schema-walk.ts";
import { CREATE_RULES, TRANSITION_RULES } from "../../integration/api/cel-cases.ts";

const rules = KIND_NAMES.flatMap((kind) =>
  collectRules(openApiSchema(KIND_DEFINITIONS[kind]) as SchemaNode).map((r) => ({
    kind,
    ...r,
    transition: r.rule.includes("oldSelf"),
  })),
);
const key = (kind: string, message: string) => `${kind}: ${message}`;

describe("CEL rule cases", () => {
  const cases = [
    ...CREATE_RULES.map((c) => ({ ...c, transition: false })),
    ...TRANSITION_RULES.map((c) => ({ ...c, transition: true })),
  ];

  it.each(rules.map((r) => [key(r.kind, r.message), r] as const))(
    "%s has accepted and refused cases",
    (_name, rule) => {
      const mine = cases.filter(
        (c) => c.kind === rule.kind && c.message === rule.message && c.transition === rule.transition,
      );
      expect(mine.reduce((n, c) => n + c.accept.length, 0)).toBeGreaterThan(0);
      expect(mine.reduce((n, c) => n + c.refuse.length, 0)).toBeGreaterThan(0);
    },
  );

  it("name only rules that exist", () => {
    const known = new Set(rules.map((r) => key(r.kind, r.message)));
    expect(cases.map((c) => key(c.kind, c.message)).filter((k) => !known.has(k))).toEqual([]);
  });
});
