// Writes crds/*.yaml and docs/reference/api.md from the schemas in shared/api.
// `--check` writes nothing and fails when the committed files have drifted.
import { mkdirSync, writeFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import { generatedFiles } from "../shared/api/codegen/generated-files.ts";
import { findDrift } from "../shared/api/codegen/drift.ts";
import { checkGenerated } from "./check-generated.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const generate = (): number => {
  const files = generatedFiles();
  for (const [path, content] of files) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  for (const stale of findDrift(root, files).filter((d) => d.problem === "not generated")) {
    rmSync(join(root, stale.path));
    console.log(`removed ${stale.path}`);
  }
  console.log(`wrote ${files.size} files`);
  return 0;
};

process.exitCode = process.argv.includes("--check") ? checkGenerated() : generate();
