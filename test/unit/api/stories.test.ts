// The story fixtures pass the ajv validators: every manifest strictly, every
// status sample on an object of its kind.
import { describe, expect, it } from "@jest/globals";
import { storyManifests, storyStatuses } from "../../fixtures/manifests/story-files.ts";
import { MINIMAL_SPECS } from "../../fixtures/manifests/minimal-specs.ts";
import { validateAnyResource, validateResource } from "../../../shared/api/validate.ts";
import { KINDS, KIND_NAMES } from "../../../shared/api/kinds.ts";

const manifests = storyManifests();
const statuses = storyStatuses();

describe("story manifests", () => {
  it("cover all 14 stories and every kind", () => {
    expect(new Set(manifests.map((m) => m.story)).size).toBe(14);
    const kinds = new Set(manifests.map((m) => m.object.kind));
    for (const kind of KIND_NAMES) expect(kinds).toContain(kind);
  });

  it.each(
    manifests.map((m) => [`${m.story}/${m.file}#${m.index} ${m.object.kind}/${m.object.metadata.name}`, m] as const),
  )("%s is valid with unknown fields refused", (_name, manifest) => {
    expect(validateAnyResource(manifest.object, { unknownFields: "reject" })).toEqual(
      expect.objectContaining({ ok: true }),
    );
  });
});

describe("story status samples", () => {
  it.each(statuses.map((s) => [`${s.story}/${s.file}`, s] as const))("%s is a valid status", (_name, sample) => {
    const object = {
      apiVersion: KINDS[sample.kind].apiVersion,
      kind: sample.kind,
      metadata: { name: "sample", namespace: "default" },
      spec: MINIMAL_SPECS[sample.kind],
      status: sample.status,
    };
    expect(validateResource(sample.kind, object, { unknownFields: "reject" })).toEqual(
      expect.objectContaining({ ok: true }),
    );
  });
});
