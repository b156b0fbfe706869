// The version a release names is one version: package.json, the chart's version and appVersion and
// the newest CHANGELOG.md entry agree on every commit, so a `v*` tag of that version releases
// (.github/workflows/release.yml runs `scripts/release.ts check` before it builds anything).
import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { changelogHeadings, changelogReleases, releaseVersions, tagProblems } from "./release.ts";
import { parse } from "yaml";
import { checkout } from "./build.ts";

const changelog = readFileSync(join(checkout, "CHANGELOG.md"), "utf8");

describe("the release version", () => {
  it("is the same in package.json, chart/Chart.yaml (version and appVersion) and CHANGELOG.md", () => {
    const versions = releaseVersions();
    expect(versions).toEqual({
      packageJson: versions.packageJson,
      chartVersion: versions.packageJson,
      chartAppVersion: versions.packageJson,
      changelog: versions.packageJson,
    });
    expect(tagProblems(`v${versions.packageJson}`, versions)).toEqual([]);
  });

  it("refuses a tag that names another version, or no v<version>", () => {
    const versions = { packageJson: "0.2.0", chartVersion: "0.2.0", chartAppVersion: "0.1.0", changelog: "0.2.0" };
    expect(tagProblems("v0.2.0", versions)).toEqual(["chartAppVersion names 0.1.0, the tag 0.2.0"]);
    expect(tagProblems("0.2.0", versions)).toEqual(["tag 0.2.0 is not v<version>"]);
    expect(tagProblems("v0.3.0", { ...versions, changelog: undefined })).toHaveLength(4);
  });
});

describe("CHANGELOG.md", () => {
  it("opens with an [Unreleased] section above the releases, each with a date and a text", () => {
    const headings = changelogHeadings(changelog);
    expect(headings[0]).toBe("## [Unreleased]");
    const releases = changelogReleases(changelog);
    expect(releases.length).toBe(headings.length - 1);
    for (const r of releases) expect([r.version, r.notes.length > 0]).toEqual([r.version, true]);
  });

  it("gives a release's text: everything under its heading up to the next", () => {
    const text = [
      "# Changelog",
      "",
      "## [Unreleased]",
      "",
      "## [0.2.0] - 2027-01-02",
      "",
      "### Fixed",
      "- b",
      "",
      "## [0.1.0] - 2026-12-07",
      "",
      "- a",
      "",
    ].join("\n");
    expect(changelogReleases(text)).toEqual([
      { version: "0.2.0", date: "2027-01-02", notes: "### Fixed\n- b" },
      { version: "0.1.0", date: "2026-12-07", notes: "- a" },
    ]);
  });
});

describe(".github/workflows/release.yml", () => {
  it("sets image.digest on the one line of chart/values.yaml that holds it, empty by default", () => {
    const values = readFileSync(join(checkout, "chart", "values.yaml"), "utf8");
    const workflow = readFileSync(join(checkout, ".github", "workflows", "release.yml"), "utf8");
    expect(workflow).toContain('sed -i -E "s/^  digest: \\"\\"\\$/  digest: \\"${DIGEST}\\"/" chart/values.yaml');
    expect(values.split("\n").filter((line) => line.startsWith("  digest: "))).toEqual(['  digest: ""']);
    expect((parse(values) as { image: { digest: string } }).image.digest).toBe("");
  });

  it("checks the tag and takes the release text with scripts/release.ts", () => {
    const workflow = readFileSync(join(checkout, ".github", "workflows", "release.yml"), "utf8");
    expect(workflow).toContain('node scripts/release.ts check "$TAG"');
    expect(workflow).toContain('node scripts/release.ts notes "$TAG" > release-notes.md');
  });
});
