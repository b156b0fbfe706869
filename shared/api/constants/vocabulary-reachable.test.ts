// The vocabulary is what the code sets: every reason a kind may read, as docs/reference/api.md
// lists it, is written by some function or runtime path, not only declared.
import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import * as declared from "./reasons.ts";
import { CONDITION_VOCABULARY } from "./vocabulary.ts";

const ROOT = join(import.meta.dirname, "../../..");
const SOURCES = ["functions", "shared", "bin"];
// Where reasons are declared or documented, not set.
const DECLARING = ["shared/api/constants/", "shared/api/codegen/"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const code = SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)))
  .filter((path) => !DECLARING.some((prefix) => relative(ROOT, path).startsWith(prefix)))
  .map((path) => readFileSync(path, "utf8"))
  .join("\n");

const listed: readonly string[] = [
  ...new Set(
    Object.values(CONDITION_VOCABULARY).flatMap((conditions) =>
      Object.values(conditions).flatMap((reasons) => [...(reasons ?? [])]),
    ),
  ),
].sort();

/** Set as a literal (`reason: "Signed"`) or through a reasons object (`AUTH_REASONS.Signed`). */
const isSet = (reason: string): boolean =>
  code.includes(`"${reason}"`) || new RegExp(`_REASONS\\.${reason}\\b`).test(code);

/** Every reason the code can name: the `Reason` type's families. */
const settable = Object.entries(declared)
  .filter(([name]) => name.endsWith("_REASONS"))
  .flatMap(([, family]) => Object.values(family as Readonly<Record<string, string>>));

describe("the condition vocabulary", () => {
  it("lists only reasons some code path sets", () => {
    expect(listed.filter((reason) => !isSet(reason))).toEqual([]);
  });

  it("lists, under some kind, every reason the code may set", () => {
    expect(settable.filter((reason) => !listed.includes(reason))).toEqual([]);
  });
});
