import { describe, expect, it } from "@jest/globals";
import type { Kube } from "../kube/client.ts";
import type { KubeObject } from "../kube/object.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import {
  currentVersions,
  digestAt,
  digestOf,
  formatRecord,
  parseRecord,
  recordingReads,
  type InputFacet,
  type InputRead,
} from "./inputs.ts";

const secret: InputRead = { apiVersion: "v1", kind: "Secret", namespace: "a", name: "tls", version: "41" };
const grants: InputRead = {
  apiVersion: "nats-operator.io/v1beta1",
  kind: "NatsReferenceGrant",
  namespace: "b",
  name: "*",
  version: "0123456789abcdef",
};

describe("the record of a reconcile's inputs", () => {
  it("reads back as written: the digest, then each ref once, in order", () => {
    const record = parseRecord(formatRecord([secret, grants, { ...secret, version: "42" }], 3));
    expect(record?.refs).toEqual([
      { apiVersion: "nats-operator.io/v1beta1", kind: "NatsReferenceGrant", namespace: "b", name: "*" },
      { apiVersion: "v1", kind: "Secret", namespace: "a", name: "tls" },
    ]);
    // The last read of a ref is the one recorded.
    const versions = new Map([
      ["v1:Secret:a/tls", "42"],
      ["nats-operator.io/v1beta1:NatsReferenceGrant:b/*", grants.version],
    ]);
    expect(record && digestAt(record, versions, 3)).toBe(record?.digest);
    expect(record && digestAt(record, new Map([...versions, ["v1:Secret:a/tls", "43"]]), 3)).not.toBe(record?.digest);
  });

  it("no longer matches once the operator is upgraded, so every object is reconciled once by the new release", () => {
    expect(digestOf([secret, grants], 1, "0.1.0")).toBe(digestOf([grants, secret], 1, "0.1.0"));
    expect(digestOf([secret, grants], 1, "0.2.0")).not.toBe(digestOf([secret, grants], 1, "0.1.0"));
    expect(digestOf([], 1, "0.2.0")).not.toBe(digestOf([], 1, "0.1.0"));
  });

  it("no longer matches once the object is at another generation: the record tells the last one finished", () => {
    const record = parseRecord(formatRecord([secret], 3));
    const versions = new Map([["v1:Secret:a/tls", secret.version]]);
    expect(record && digestAt(record, versions, 3)).toBe(record?.digest);
    expect(record && digestAt(record, versions, 4)).not.toBe(record?.digest);
  });

  it("records no input as a digest alone", () => {
    expect(parseRecord(formatRecord([], 1))).toEqual({ digest: expect.stringMatching(/^[0-9a-f]{16}$/), refs: [] });
  });

  it("does not parse what it did not write", () => {
    for (const text of [7, "", "not a digest", "0123456789abcdef v1:Secret", "0123456789abcdef v1:Secret:a/tls/x"])
      expect(parseRecord(text)).toBeUndefined();
  });
});

describe("an input read through a facet", () => {
  const AUTH = "auth.nats-operator.io/v1beta1";
  const account = (resourceVersion: string, limits: number, key: string): KubeObject =>
    ({
      apiVersion: AUTH,
      kind: "NatsAccount",
      metadata: { name: "app", namespace: "a", resourceVersion },
      spec: { limits },
      status: { publicKey: key },
    }) as KubeObject;
  const user = {
    apiVersion: AUTH,
    kind: "NatsUser",
    metadata: { name: "alice", namespace: "a", uid: "u" },
  } as KubeObject;
  const keyOnly: InputFacet = {
    reader: "NatsUser.auth.nats-operator.io",
    input: "NatsAccount.auth.nats-operator.io",
    name: "key-only",
    version: (o) => String((o as { status?: { publicKey?: string } }).status?.publicKey),
  };
  const scope = { function: "sign-account", kinds: new Set(["NatsAccount.auth.nats-operator.io"]), facets: [keyOnly] };
  const key = { apiVersion: AUTH, kind: "NatsAccount", namespace: "a", name: "app" };

  /** The record a user's reconcile keeps of reading `app` as `stored` is. */
  const recordOver = async (stored: KubeObject) => {
    const reading = recordingReads(memoryKube([stored]) as Kube, user, scope);
    await reading.kube.get(key);
    return parseRecord(formatRecord(reading.reads(), 1));
  };
  /** Whether the sweep finds the record stale against `now`. */
  const staleAgainst = async (record: NonNullable<Awaited<ReturnType<typeof recordOver>>>, now: KubeObject) => {
    const versions = await currentVersions(
      record.refs,
      async () => [now],
      async () => now,
      () => false,
      [keyOnly],
    );
    return digestAt(record, versions, 1) !== record.digest;
  };

  it("is recorded under the facet's name, with the facet's version", async () => {
    const record = await recordOver(account("10", 5, "AKEY"));
    expect(record?.refs).toEqual([{ ...key, facet: "key-only" }]);
  });

  it("is no change when only the rest of the object changed, and a change when the facet did", async () => {
    const record = await recordOver(account("10", 5, "AKEY"));
    if (!record) throw new Error("no record");
    expect(await staleAgainst(record, account("11", 50, "AKEY"))).toBe(false);
    expect(await staleAgainst(record, account("12", 5, "ANEW"))).toBe(true);
    // A sweep of a function without the facet (since removed) reads the whole object: a change.
    const versions = await currentVersions(
      record.refs,
      async () => [account("10", 5, "AKEY")],
      async () => undefined,
      () => false,
    );
    expect(digestAt(record, versions, 1)).not.toBe(record.digest);
  });

  it("is read whole by readers the facet does not name", async () => {
    const other = { ...user, kind: "NatsAccountTrust" } as KubeObject;
    const reading = recordingReads(memoryKube([account("10", 5, "AKEY")]) as Kube, other, scope);
    const stored = await reading.kube.get(key);
    expect(reading.reads()).toEqual([{ ...key, version: stored?.metadata.resourceVersion }]);
  });
});
