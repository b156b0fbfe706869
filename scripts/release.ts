// What the release workflow (.github/workflows/release.yml) checks and publishes from the checkout:
//   node scripts/release.ts check <tag>   exit 1 unless the tag (v0.1.0) names the version that
//                                          package.json, chart/Chart.yaml (version, appVersion) and
//                                          the latest CHANGELOG.md release agree on
//   node scripts/release.ts notes <ver>   print the CHANGELOG.md entry of a version: the release text
// scripts/release.test.ts keeps the versions in agreement on every commit, not only at a tag.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A `## [x.y.z] - YYYY-MM-DD` heading of CHANGELOG.md and the text under it. */
export interface ChangelogRelease {
  version: string;
  date: string;
  notes: string;
}

const releaseHeading = /^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\] - (\d{4}-\d{2}-\d{2})$/;

/** Every section of a Keep a Changelog file by its `## ` heading, in file order. */
function sections(changelog: string): { heading: string; body: string }[] {
  const found: { heading: string; lines: string[] }[] = [];
  for (const line of changelog.split("\n")) {
    if (line.startsWith("## ")) found.push({ heading: line, lines: [] });
    else found.at(-1)?.lines.push(line);
  }
  return found.map((s) => ({ heading: s.heading, body: s.lines.join("\n").trim() }));
}

/** The released versions of a changelog, newest (topmost) first; `[Unreleased]` is not one. */
export function changelogReleases(changelog: string): ChangelogRelease[] {
  return sections(changelog).flatMap(({ heading, body }) => {
    const match = releaseHeading.exec(heading);
    return match?.[1] && match[2] ? [{ version: match[1], date: match[2], notes: body }] : [];
  });
}

/** The headings of a changelog's `## ` sections, in order (the first must be `## [Unreleased]`). */
export function changelogHeadings(changelog: string): string[] {
  return sections(changelog).map((s) => s.heading);
}

/** The version each release source names. */
export interface ReleaseVersions {
  packageJson: string;
  chartVersion: string;
  chartAppVersion: string;
  changelog: string | undefined;
}

export function releaseVersions(repo: string = root): ReleaseVersions {
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string };
  const chart = parse(readFileSync(join(repo, "chart", "Chart.yaml"), "utf8")) as {
    version: unknown;
    appVersion: unknown;
  };
  return {
    packageJson: pkg.version,
    chartVersion: String(chart.version),
    chartAppVersion: String(chart.appVersion),
    changelog: changelogReleases(readFileSync(join(repo, "CHANGELOG.md"), "utf8"))[0]?.version,
  };
}

/** Why a tag cannot be released from this checkout; empty when it can. */
export function tagProblems(tag: string, versions: ReleaseVersions): string[] {
  const version = tag.replace(/^v/, "");
  if (!tag.startsWith("v") || version === "") return [`tag ${tag} is not v<version>`];
  return Object.entries(versions)
    .filter(([, v]) => v !== version)
    .map(([source, v]) => `${source} names ${v ?? "no release"}, the tag ${version}`);
}

function main(argv: string[]): number {
  const [command, arg] = argv;
  if (command === "check" && arg) {
    const problems = tagProblems(arg, releaseVersions());
    for (const p of problems) process.stderr.write(`release: ${p}\n`);
    return problems.length === 0 ? 0 : 1;
  }
  if (command === "notes" && arg) {
    const release = changelogReleases(readFileSync(join(root, "CHANGELOG.md"), "utf8")).find(
      (r) => r.version === arg.replace(/^v/, ""),
    );
    if (!release) {
      process.stderr.write(`release: CHANGELOG.md has no entry ## [${arg}]\n`);
      return 1;
    }
    process.stdout.write(`${release.notes}\n`);
    return 0;
  }
  process.stderr.write("usage: node scripts/release.ts check <tag> | notes <version>\n");
  return 2;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
