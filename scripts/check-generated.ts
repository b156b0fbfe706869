// Exits non-zero when committed CRDs, the API reference or the chart's README differ from what
// `npm run generate` would write. Usage: node scripts/check-generated.ts
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";
import { findDrift } from "../shared/api/codegen/drift.ts";
import { CHART_README_PATH, chartReadmeStale } from "./chart-readme.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const checkGenerated = (): number => {
  const drift = [
    ...findDrift(root),
    ...(chartReadmeStale(root) ? [{ path: CHART_README_PATH, problem: "differs" as const }] : []),
  ];
  if (drift.length === 0) {
    console.log("generated API files are up to date");
    return 0;
  }
  for (const d of drift) console.error(`${d.path}: ${d.problem}`);
  console.error("run `npm run generate` and commit the result");
  return 1;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = checkGenerated();
