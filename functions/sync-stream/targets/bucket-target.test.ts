import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import type { Wire } from "../config/fields.ts";
import { isSpecProblem, type Target } from "./kinds.ts";
import { keyValueTarget, objectStoreTarget } from "./bucket-target.ts";
import { planObject, type AdoptionPolicy } from "../plan/plan.ts";

const fixture = (name: string): Wire =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/jetstream/${name}`, import.meta.url), "utf8")) as Wire;

const kv = (spec: Record<string, unknown>): Target => {
  const t = keyValueTarget({ metadata: { name: "sessions" }, spec });
  if (isSpecProblem(t)) throw new Error(t.problem);
  return t;
};
const obj = (spec: Record<string, unknown>): Target => {
  const t = objectStoreTarget({ metadata: { name: "receipts" }, spec });
  if (isSpecProblem(t)) throw new Error(t.problem);
  return t;
};
const plan = (t: Target, server: Wire | undefined, adoptionPolicy: AdoptionPolicy = "AdoptOrCreate") =>
  planObject({
    model: t.model,
    uid: "uid-b",
    adoptionPolicy,
    desired: t.desired,
    specMetadata: t.specMetadata,
    server,
    foreignOwnerExists: false,
    pendingEdit: false,
  });

const sessions = { name: "sessions", history: 5, ttl: "24h", maxValueSize: "64Ki", maxBytes: "1Gi", storage: "File" };

describe("NatsKeyValue planning", () => {
  it("asks for the stream KV_<bucket> the way a NATS client makes a bucket", () => {
    expect(kv(sessions).desired).toEqual({
      name: "KV_sessions",
      subjects: ["$KV.sessions.>"],
      max_msgs_per_subject: 5,
      max_age: 24 * 3600e9,
      max_msg_size: 65536,
      max_bytes: 2 ** 30,
      storage: "file",
      retention: "limits",
      discard: "new",
      allow_rollup_hdrs: true,
      allow_direct: true,
    });
  });

  it("adopts a bucket a client made and finds nothing else to change", () => {
    const p = plan(kv(sessions), fixture("kv-sessions.json"));
    expect(p.kind === "update" && p.drift).toEqual(["metadata"]);
  });

  it("goes Terminal NotABucket for a KV_ stream that keeps no per-key history", () => {
    const p = plan(kv(sessions), fixture("stream-plain-named-kv.json"));
    expect(p.kind === "terminal" && p.reason).toBe("NotABucket");
  });

  it("reads a bucket's stream back as key-value spec (history, ttl, sizes; zero values left out)", () => {
    expect(kv(sessions).toSpec(fixture("kv-sessions.json"))).toEqual({
      history: 5,
      ttl: "24h0m0s",
      maxValueSize: "64Ki",
      maxBytes: "1Gi",
      storage: "File",
      replicas: 1,
    });
  });

  it("prefixes mirror and source names with KV_ and adds the subject transform of a foreign source", () => {
    const d = kv({ name: "sessions", sources: [{ name: "other" }] }).desired;
    expect(d.sources).toEqual([
      { name: "KV_other", subject_transforms: [{ src: "$KV.other.>", dest: "$KV.sessions.>" }] },
    ]);
    const m = kv({ name: "sessions", mirror: { name: "origin" } }).desired;
    expect(m.mirror).toEqual({ name: "KV_origin" });
    expect(m.subjects).toBeUndefined();
    expect(m.mirror_direct).toBe(true);
  });

  it("refuses invalid bucket names, a preferred leader and history over 64 before asking the server", () => {
    expect(isSpecProblem(keyValueTarget({ metadata: { name: "x" }, spec: { name: "no.dots" } }))).toBe(true);
    expect(isSpecProblem(keyValueTarget({ metadata: { name: "x" }, spec: { placement: { preferred: "n1" } } }))).toBe(
      true,
    );
    expect(isSpecProblem(keyValueTarget({ metadata: { name: "x" }, spec: { history: 65 } }))).toBe(true);
  });
});

describe("NatsObjectStore planning", () => {
  const receipts = { name: "receipts", ttl: "2160h", maxBytes: "50Gi", storage: "File", compression: true };

  it("asks for the stream OBJ_<bucket> with chunk and meta subjects and rollups", () => {
    expect(obj(receipts).desired).toMatchObject({
      name: "OBJ_receipts",
      subjects: ["$O.receipts.C.>", "$O.receipts.M.>"],
      allow_rollup_hdrs: true,
      discard: "new",
      compression: "s2",
      max_bytes: 50 * 2 ** 30,
    });
  });

  it("adopts an object store a client made", () => {
    expect(plan(obj(receipts), fixture("obj-receipts.json")).kind).toBe("update");
  });

  it("goes Terminal NotABucket when OBJ_<bucket> lacks the object-store subjects", () => {
    const server = { ...fixture("obj-receipts.json"), subjects: ["receipts.>"] };
    expect(plan(obj(receipts), server).kind === "terminal").toBe(true);
  });
});
