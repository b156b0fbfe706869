// The layout's promise that a folder reads top-down: the modules of one folder import each other
// without a circle (types included), so each can be read after the ones it names.
import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { repoRoot } from "../harness/paths.ts";

const specifier = /(?:^|\s)(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']/gs;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Each module's imports of modules in its own folder. */
function sameFolderImports(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = [...readFileSync(file, "utf8").matchAll(specifier)]
        .map((match) => normalize(join(dirname(file), match[1] ?? "")))
        .filter((target) => known.has(target) && dirname(target) === dirname(file));
      return [file, targets];
    }),
  );
}

/** The circles of a graph: its strongly connected components of more than one module (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const describeCircle = (circle: readonly string[]) =>
  circle
    .map((file) => relative(repoRoot, file))
    .sort()
    .join(" <-> ");

describe("the modules of a folder", () => {
  it.each(["functions", "shared"])("import each other without a circle, in %s/", (top) => {
    const found = circles(sameFolderImports(sourcesUnder(join(repoRoot, top))));
    expect(found.map(describeCircle)).toEqual([]);
  });

  it("are found in a circle when two of them import each other", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["a.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(circles(graph)).toEqual([["b.ts", "a.ts"]]);
  });
});
