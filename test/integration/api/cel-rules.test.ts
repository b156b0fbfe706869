// Every CEL rule, against the real API server: accepted cases pass, refused
// cases fail with the rule's message. Create rules by dry-run create;
// transition rules by creating a base object and dry-run replacing its spec.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CREATE_RULES, TRANSITION_RULES, type SpecOf } from "./cel-cases.ts";
import {
  accepted,
  closeSession,
  create,
  objectOf,
  openSession,
  replace,
  uniqueName,
  type ApiSession,
} from "./support/api.ts";

let session: ApiSession | undefined;
beforeAll(async () => {
  session = await openSession("api-cel");
}, 120_000);
afterAll(async () => {
  await closeSession(session);
});

const open = (): ApiSession => {
  if (!session) throw new Error("no session");
  return session;
};

const specFor = (spec: SpecOf, name: string) => (typeof spec === "function" ? spec(name) : spec);

const label = (spec: SpecOf) => (typeof spec === "function" ? "(spec from metadata.name)" : JSON.stringify(spec));

describe("create rules", () => {
  const cases = CREATE_RULES.flatMap((c) => [
    ...c.accept.map((spec) => ({ kind: c.kind, message: c.message, spec, accept: true })),
    ...c.refuse.map((spec) => ({ kind: c.kind, message: c.message, spec, accept: false })),
  ]);

  it.each(
    cases.map((c) => [`${c.kind} ${c.accept ? "accepts" : "refuses"} ${label(c.spec)} (${c.message})`, c] as const),
  )("%s", async (_name, c) => {
    const name = uniqueName(c.kind.toLowerCase());
    const verdict = await create(open(), objectOf(open(), c.kind, name, specFor(c.spec, name)), { dryRun: true });
    if (c.accept) {
      accepted(verdict);
    } else {
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) {
        expect(verdict.code).toBe(422);
        expect(verdict.message).toContain(c.message);
      }
    }
  });
});

describe("transition rules", () => {
  const cases = TRANSITION_RULES.flatMap((c) => [
    ...c.accept.map((spec) => ({ kind: c.kind, message: c.message, base: c.base, spec, accept: true })),
    ...c.refuse.map((spec) => ({ kind: c.kind, message: c.message, base: c.base, spec, accept: false })),
  ]);

  it.each(
    cases.map(
      (c) =>
        [
          `${c.kind} from ${label(c.base)} ${c.accept ? "accepts" : "refuses"} ${label(c.spec)} (${c.message})`,
          c,
        ] as const,
    ),
  )("%s", async (_name, c) => {
    const name = uniqueName(c.kind.toLowerCase());
    const stored = accepted(await create(open(), objectOf(open(), c.kind, name, specFor(c.base, name))));
    const verdict = await replace(open(), { ...stored, spec: specFor(c.spec, name) }, { dryRun: true });
    if (c.accept) {
      accepted(verdict);
    } else {
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) {
        expect(verdict.code).toBe(422);
        expect(verdict.message).toContain(c.message);
      }
    }
  });
});

describe("NatsCluster name", () => {
  it.each([
    ["accepts a 54-character DNS label", `a${"b".repeat(53)}`, true],
    ["refuses 55 characters (<name>-headless would exceed a DNS label)", `a${"b".repeat(54)}`, false],
    ["refuses a name starting with a digit (not a Service name)", "1cluster", false],
  ])("%s", async (_what, name, ok) => {
    const verdict = await create(open(), objectOf(open(), "NatsCluster", name, { version: "2.15.0", replicas: 1 }), {
      dryRun: true,
    });
    expect(verdict.ok).toBe(ok);
  });
});
