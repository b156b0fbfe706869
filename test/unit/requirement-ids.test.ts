// Comments in functions/ and shared/ cite requirement ids (`C33`, `A46–A50`, `N12`): the ids of the
// reference implementation's behaviour inventory, one letter per plane. docs/reference/behaviour.md
// says what each means in this operator. This keeps that page true: an id a comment cites, or a
// range of ids it cites, has an entry there, wherever the citing file lives.
import { describe, expect, it } from "@jest/globals";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..", "..");
const SCANNED = ["functions", "shared"];
const PAGE = "docs/reference/behaviour.md";

/**
 * A requirement id: its plane's letter and a number. C cluster, A auth, J JetStream objects,
 * B balancers, E evacuation, T tenancy, H hardening, N nats-server behaviours worked around.
 */
const ID = String.raw`[ABCEHJNT]\d{1,2}`;
/** One id, or a range of them (`C15–C17`, `B5-B12`). */
const CITATION = new RegExp(String.raw`\b(${ID})(?:\s*[–-]\s*(${ID}))?\b`, "g");
/** An entry of the page: a heading that is the id. */
const ENTRY = new RegExp(String.raw`^#{2,6}\s+(${ID})\s*$`, "gm");

/** Every .ts file under `dir`, recursively. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const { SyntaxKind } = ts;
/** Tokens after which a `/` divides; anywhere else it opens a regular expression. */
const ENDS_OPERAND = new Set([
  SyntaxKind.Identifier,
  SyntaxKind.PrivateIdentifier,
  SyntaxKind.StringLiteral,
  SyntaxKind.NumericLiteral,
  SyntaxKind.BigIntLiteral,
  SyntaxKind.RegularExpressionLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail,
  SyntaxKind.ThisKeyword,
  SyntaxKind.SuperKeyword,
  SyntaxKind.TrueKeyword,
  SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword,
  SyntaxKind.PlusPlusToken,
  SyntaxKind.MinusMinusToken,
  SyntaxKind.CloseParenToken,
  SyntaxKind.CloseBracketToken,
  SyntaxKind.CloseBraceToken,
]);
const isKeyword = (kind: ts.SyntaxKind) => kind >= SyntaxKind.FirstKeyword && kind <= SyntaxKind.LastKeyword;
const isTrivia = (kind: ts.SyntaxKind) => kind >= SyntaxKind.FirstTriviaToken && kind <= SyntaxKind.LastTriviaToken;

/**
 * The comments of a TypeScript source, read with the compiler's scanner as its classifier reads
 * them: text in strings, template literals and regular expressions is not a comment.
 */
function commentsOf(source: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source);
  const comments: string[] = [];
  // The brace depth at which each open template substitution (`${`) closes.
  const substitutions: number[] = [];
  let depth = 0;
  let last: ts.SyntaxKind = SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === SyntaxKind.SingleLineCommentTrivia || kind === SyntaxKind.MultiLineCommentTrivia) {
      comments.push(scanner.getTokenText());
      continue;
    }
    if (isTrivia(kind)) continue;
    // A keyword after a dot is a property name (`x.type / 2`).
    if (isKeyword(kind) && last === SyntaxKind.DotToken) kind = SyntaxKind.Identifier;
    if ((kind === SyntaxKind.SlashToken || kind === SyntaxKind.SlashEqualsToken) && !ENDS_OPERAND.has(last)) {
      kind = scanner.reScanSlashToken();
    } else if (kind === SyntaxKind.CloseBraceToken && substitutions.at(-1) === depth) {
      kind = scanner.reScanTemplateToken(false);
      if (kind === SyntaxKind.TemplateTail) substitutions.pop();
    } else if (kind === SyntaxKind.OpenBraceToken) depth++;
    else if (kind === SyntaxKind.CloseBraceToken) depth--;
    if (kind === SyntaxKind.TemplateHead) substitutions.push(depth);
    last = kind;
  }
  return comments;
}

/** The ids a text cites, each range spelt out (`C15–C17` is C15, C16 and C17). */
function idsCitedIn(text: string): string[] {
  return [...text.matchAll(CITATION)].flatMap(([, from = "", to]) => {
    if (!to) return [from];
    const [letter, first, last] = [from[0], Number(from.slice(1)), Number(to.slice(1))];
    if (to[0] !== letter || last < first) return [from, to];
    return Array.from({ length: last - first + 1 }, (_, i) => `${letter}${first + i}`);
  });
}

/** Each id the comments under `SCANNED` cite, with the files citing it. */
function citedIds(): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  for (const file of SCANNED.flatMap((dir) => sourcesUnder(join(ROOT, dir)))) {
    const ids = new Set(commentsOf(readFileSync(file, "utf8")).flatMap(idsCitedIn));
    for (const id of ids) cited.set(id, [...(cited.get(id) ?? []), relative(ROOT, file)]);
  }
  return cited;
}

/** The ids the page has an entry for, as often as it has one. */
const entriesOfPage = (): string[] =>
  [...readFileSync(join(ROOT, PAGE), "utf8").matchAll(ENTRY)].map(([, id]) => id ?? "");

describe("requirement ids", () => {
  it(`every requirement id a comment cites is defined in ${PAGE}`, () => {
    const cited = citedIds();
    const defined = new Set(entriesOfPage());
    expect(cited.size).toBeGreaterThan(0);
    const missing = [...cited]
      .filter(([id]) => !defined.has(id))
      .map(([id, files]) => `${id}, cited in ${files.join(", ")}`)
      .sort();
    expect(missing).toEqual([]);
  });

  it(`${PAGE} defines each id once`, () => {
    const entries = entriesOfPage();
    expect(entries.filter((id, i) => entries.indexOf(id) !== i)).toEqual([]);
  });

  it("reads ids from comments only, never from strings, templates or regular expressions", () => {
    const source = [
      "// Removal one phase at a time (C33).",
      'const tried = ["A1", "B1"]; /* scoped keys, A9 */',
      "const url = `${host}://C12/${`//C9 ${'B10'}`}`; // leaf remotes (C52)",
      "const re = /\\/\\/ C41/; const half = total / 2 / count; // rollout (B12)",
      "const kind = x.type / 2; // lease (B9)",
    ].join("\n");
    expect(commentsOf(source).flatMap(idsCitedIn)).toEqual(["C33", "A9", "C52", "B12", "B9"]);
  });

  it("spells a cited range out into every id in it", () => {
    expect(idsCitedIn("listeners (C43, C46–C48, C51); pass (B5-B7); streams R1–R5, N12")).toEqual([
      "C43",
      "C46",
      "C47",
      "C48",
      "C51",
      "B5",
      "B6",
      "B7",
      "N12",
    ]);
  });
});
