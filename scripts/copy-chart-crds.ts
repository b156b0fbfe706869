// Copies the generated CRDs (crds/*.yaml) into the Helm chart (chart/crds/), byte for byte, and
// removes any the generator no longer writes. Run after `npm run generate`:
//   node scripts/copy-chart-crds.ts           copy
//   node scripts/copy-chart-crds.ts --check   write nothing; exit 1 when chart/crds/ has drifted
// scripts/copy-chart-crds.test.ts runs the check with the unit tests.
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface CrdDrift {
  file: string;
  problem: "missing from chart/crds" | "differs from crds" | "not in crds";
}

const yamlFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort();

/** How chart/crds/ differs from crds/ under `repo` (empty: equal). */
export function chartCrdDrift(repo: string = root): CrdDrift[] {
  const source = join(repo, "crds");
  const target = join(repo, "chart", "crds");
  const wanted = yamlFiles(source);
  const present = new Set(yamlFiles(target));
  const drift: CrdDrift[] = [];
  for (const file of wanted) {
    if (!present.has(file)) drift.push({ file, problem: "missing from chart/crds" });
    else if (!readFileSync(join(source, file)).equals(readFileSync(join(target, file))))
      drift.push({ file, problem: "differs from crds" });
    present.delete(file);
  }
  for (const file of present) drift.push({ file, problem: "not in crds" });
  return drift;
}

/** Makes chart/crds/ equal to crds/; returns what it changed. */
export function copyChartCrds(repo: string = root): CrdDrift[] {
  const drift = chartCrdDrift(repo);
  for (const { file, problem } of drift) {
    if (problem === "not in crds") rmSync(join(repo, "chart", "crds", file));
    else copyFileSync(join(repo, "crds", file), join(repo, "chart", "crds", file));
  }
  return drift;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const drift = chartCrdDrift();
    for (const d of drift) console.error(`chart/crds/${d.file}: ${d.problem}`);
    if (drift.length > 0) console.error("run `node scripts/copy-chart-crds.ts` and commit the result");
    process.exitCode = drift.length === 0 ? 0 : 1;
  } else {
    const changed = copyChartCrds();
    console.log(`chart/crds: ${changed.length === 0 ? "up to date" : `${changed.length} file(s) updated`}`);
  }
}
