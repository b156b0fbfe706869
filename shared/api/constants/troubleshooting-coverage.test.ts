// docs/troubleshooting.md covers every condition reason a user can meet: each reason of the
// vocabulary (what docs/reference/api.md lists per kind) appears there in backticks, under the
// heading of a kind that can read it.
import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KIND_NAMES } from "../kinds.ts";
import { CONDITION_VOCABULARY } from "./vocabulary.ts";

const ROOT = join(import.meta.dirname, "../../..");
const guide = readFileSync(join(ROOT, "docs/troubleshooting.md"), "utf8");

/** The guide's text under each `## ` heading, keyed by the heading. */
const sections = new Map(
  guide
    .split(/^## /m)
    .slice(1)
    .map((part) => [part.slice(0, part.indexOf("\n")).trim(), part] as const),
);

/** Sections that name a kind in their heading, e.g. "NatsStream, NatsKeyValue, …". */
const sectionsOf = (kind: string): string[] =>
  [...sections].filter(([heading]) => heading.split(/[^A-Za-z]+/).includes(kind)).map(([, text]) => text);

describe("docs/troubleshooting.md", () => {
  it.each(KIND_NAMES.filter((kind) => Object.keys(CONDITION_VOCABULARY[kind]).length > 0))(
    "explains every reason %s can read, under a heading naming the kind",
    (kind) => {
      const text = sectionsOf(kind).join("\n");
      expect([kind, text.length > 0]).toEqual([kind, true]);
      const reasons = new Set(Object.values(CONDITION_VOCABULARY[kind]).flatMap((list) => [...(list ?? [])]));
      // Stalled is the runtime's, on every kind: its own section explains it.
      reasons.delete("RequestRefused");
      expect([...reasons].filter((reason) => !text.includes(`\`${reason}\``))).toEqual([]);
    },
  );

  it("explains the runtime's Stalled condition and the Knative plumbing", () => {
    expect(guide).toContain("`RequestRefused`");
    for (const thing of ["Broker", "Trigger", "ApiServerSource", "PingSource", "EventDropped", "dead-letter"])
      expect([thing, guide.includes(thing)]).toEqual([thing, true]);
  });
});
