/**
 * How `npm test` splits the integration test files between its two Jest processes (each with a
 * control plane of its own), and the table of per-file durations the split is balanced by.
 *
 *   node scripts/integration-split.ts [--write] [report.json ...]
 *
 * prints the table measured in the given Jest --json reports (default: the reports of the last
 * `npm test`, .cache/test-reports/integration-*.json) merged over test/integration/durations.json,
 * in the form that file has; with --write, writes it to test/integration/durations.json instead.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(import.meta.dirname, "..");
export const DURATIONS_FILE = "test/integration/durations.json";
/** Seconds assumed for a file the table does not name (a new test file). */
export const DEFAULT_SECONDS = 60;

/** The integration test files (jest.integration.config.js's testMatch), repo-relative, sorted. */
export function integrationFiles(root = repoRoot): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".test.ts")) out.push(path);
    }
  };
  walk("test/integration");
  return out.sort();
}

export function readDurations(root = repoRoot): Record<string, number> {
  const file = join(root, DURATIONS_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, number>) : {};
}

/**
 * Whether a file starts a Knative-profile control plane of its own. Such files run in the same
 * process, one after another: Knative's Services have the same names in every run
 * (knative-eventing, traefik, kubernetes.default ...) and resolve through the machine's one
 * /etc/hosts, so the harness lets one such control plane run at a time (machine-lock.ts), and
 * files in two processes would wait on each other.
 */
export function startsKnativeControlPlane(file: string, root = repoRoot): boolean {
  const text = readFileSync(join(root, file), "utf8");
  return /startKnativeCluster\(|profile:\s*"knative"/.test(text);
}

/** The line that puts a file on the real node (test/harness/node/): the process that runs it starts one. */
export const REAL_NODE_MARKER = "// harness: real node";

/** Whether a file asks for the real node (its own line `// harness: real node`). */
export function runsOnRealNode(file: string, root = repoRoot): boolean {
  return readFileSync(join(root, file), "utf8").split("\n").includes(REAL_NODE_MARKER);
}

export interface Group {
  files: string[];
  seconds: number;
  /** What the group's Jest process is started with, besides the common environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Splits `files` into `count` groups of about equal total duration: longest first, each onto the
 * group with the least so far. The files `together` names go as one item, onto one group.
 */
export function split(
  files: readonly string[],
  durations: Record<string, number>,
  count: number,
  together: (file: string) => boolean = () => false,
): Group[] {
  const seconds = (f: string): number => durations[f] ?? DEFAULT_SECONDS;
  const joined = files.filter(together);
  const items: { files: string[]; seconds: number }[] = files
    .filter((f) => !together(f))
    .map((f) => ({ files: [f], seconds: seconds(f) }));
  if (joined.length > 0) items.push({ files: joined, seconds: joined.reduce((s, f) => s + seconds(f), 0) });
  items.sort((a, b) => b.seconds - a.seconds || (a.files[0] ?? "").localeCompare(b.files[0] ?? ""));
  const groups: Group[] = Array.from({ length: count }, () => ({ files: [], seconds: 0 }));
  for (const item of items) {
    const lightest = groups.reduce((min, g) => (g.seconds < min.seconds ? g : min));
    lightest.files.push(...item.files);
    lightest.seconds += item.seconds;
  }
  // Listed longest first; Jest still runs them in the order its own sequencer picks.
  for (const g of groups) g.files.sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
  return groups;
}

interface JestFileResult {
  name: string;
  startTime?: number;
  endTime?: number;
  perfStats?: { start?: number; end?: number; runtime?: number };
}

/** Seconds per repo-relative test file, as a Jest --json report measured them. */
export function durationsFromReport(
  report: { testResults?: JestFileResult[] },
  root = repoRoot,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of report.testResults ?? []) {
    const start = r.perfStats?.start ?? r.startTime;
    const end = r.perfStats?.end ?? r.endTime;
    if (start === undefined || end === undefined || end < start) continue;
    out[relative(root, r.name).split(sep).join("/")] = Math.round((end - start) / 1000);
  }
  return out;
}

/** The table as durations.json holds it: keys sorted, one a line. */
export function formatDurations(durations: Record<string, number>): string {
  const keys = Object.keys(durations).sort();
  return `{\n${keys.map((k) => `  ${JSON.stringify(k)}: ${durations[k]}`).join(",\n")}\n}\n`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const reportsDir = join(repoRoot, ".cache", "test-reports");
  const args = process.argv.slice(2);
  const write = args[0] === "--write";
  if (write) args.shift();
  const reports =
    args.length > 0
      ? args
      : existsSync(reportsDir)
        ? readdirSync(reportsDir)
            .filter((f) => /^integration-\d+\.json$/.test(f))
            .map((f) => join(reportsDir, f))
        : [];
  if (reports.length === 0) {
    process.stderr.write("no Jest reports: run `npm test` first, or name reports (jest --json --outputFile=…)\n");
    process.exit(2);
  }
  const known = new Set(integrationFiles());
  const measured = Object.assign(
    {},
    ...reports.map((f) =>
      durationsFromReport(JSON.parse(readFileSync(f, "utf8")) as { testResults?: JestFileResult[] }),
    ),
  ) as Record<string, number>;
  const merged = { ...readDurations(), ...measured };
  const table = Object.fromEntries(Object.entries(merged).filter(([f]) => known.has(f)));
  if (write) writeFileSync(join(repoRoot, DURATIONS_FILE), formatDurations(table));
  else process.stdout.write(formatDurations(table));
}
