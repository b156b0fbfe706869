// Compares generated files with those on disk.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { CRD_DIRECTORY, generatedFiles } from "./generated-files.ts";

export interface Drift {
  readonly path: string;
  readonly problem: "missing" | "differs" | "not generated";
}

/** Files under `root` that are missing, differ from the generator's output, or are stale. */
export const findDrift = (root: string, files: Map<string, string> = generatedFiles()): Drift[] => {
  const drift: Drift[] = [];
  for (const [path, content] of files) {
    const full = join(root, path);
    if (!existsSync(full)) drift.push({ path, problem: "missing" });
    else if (readFileSync(full, "utf8") !== content) drift.push({ path, problem: "differs" });
  }
  const crdDir = join(root, CRD_DIRECTORY);
  if (existsSync(crdDir)) {
    for (const name of readdirSync(crdDir).sort()) {
      const path = `${CRD_DIRECTORY}/${name}`;
      if (name.endsWith(".yaml") && !files.has(path)) drift.push({ path, problem: "not generated" });
    }
  }
  return drift;
};
