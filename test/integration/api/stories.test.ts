// Every story manifest is accepted with strict field validation, and every
// story status sample can be written through the status subresource and read
// back unchanged.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { storyManifests, storyStatuses } from "../../fixtures/manifests/story-files.ts";
import { MINIMAL_SPECS } from "../../fixtures/manifests/minimal-specs.ts";
import {
  accepted,
  closeSession,
  create,
  objectOf,
  openSession,
  replaceStatus,
  uniqueName,
  type ApiSession,
  type CustomObject,
} from "./support/api.ts";

let session: ApiSession | undefined;
beforeAll(async () => {
  session = await openSession("api-stories");
}, 120_000);
afterAll(async () => {
  await closeSession(session);
});

const open = (): ApiSession => {
  if (!session) throw new Error("no session");
  return session;
};

describe("story manifests", () => {
  it.each(
    storyManifests().map(
      (m) => [`${m.story}/${m.file}#${m.index} ${m.object.kind}/${m.object.metadata.name}`, m] as const,
    ),
  )("%s is accepted (dry run, strict field validation)", async (_name, manifest) => {
    // Every manifest goes to this file's namespace; a dry run stores nothing, so names never collide.
    accepted(await create(open(), manifest.object as CustomObject, { dryRun: true }));
  });

  it("strict field validation refuses an unknown field", async () => {
    const object = objectOf(open(), "NatsCluster", "unknown-field", {
      version: "2.15.0",
      replicas: 3,
      leafRemotes: [{ connectionRef: { name: "hub" }, localAccount: "x" }],
    });
    const verdict = await create(open(), object, { dryRun: true });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.message).toContain("localAccount");
  });
});

describe("story status samples", () => {
  it.each(storyStatuses().map((s) => [`${s.story}/${s.file}`, s] as const))(
    "%s is written through the status subresource",
    async (_name, sample) => {
      const name = uniqueName(sample.kind.toLowerCase());
      const stored = accepted(await create(open(), objectOf(open(), sample.kind, name, MINIMAL_SPECS[sample.kind])));
      const written = accepted(await replaceStatus(open(), { ...stored, status: sample.status }));
      expect(written.status).toEqual(sample.status);
    },
  );
});
