// The ajv validators refuse what the schema refuses and never throw.
import { describe, expect, it } from "@jest/globals";
import { validateAnyResource, validateResource, type Validation } from "../../../shared/api/validate.ts";

const cluster = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: "cluster.nats-operator.io/v1beta1",
  kind: "NatsCluster",
  metadata: { name: "alpha", namespace: "messaging" },
  spec: { version: "2.15.0", replicas: 3, ...spec },
  ...extra,
});

const stream = (spec: Record<string, unknown>) => ({
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name: "s", namespace: "messaging" },
  spec: { connectionRef: { name: "c" }, ...spec },
});

const errorsOf = (result: Validation<unknown>) => (result.ok ? [] : result.errors);

describe("validateResource", () => {
  it("accepts a valid object and returns it typed", () => {
    const result = validateResource("NatsCluster", cluster({}));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.spec.replicas).toBe(3);
  });

  it.each([
    ["a missing required field", cluster({ replicas: undefined })],
    ["a number below its minimum", cluster({ replicas: 0 })],
    ["a wrong type", cluster({ replicas: "three" })],
    ["a value outside its enum", cluster({ auth: { trustRef: { name: "t" }, resolver: "Memory" } })],
    ["a digest not matching its pattern", cluster({ image: { digest: "sha256:xyz" } })],
    ["a malformed quantity", cluster({ resources: { limits: { memory: "4 gigs" } } })],
    ["an empty required string", cluster({ auth: { trustRef: { name: "" } } })],
    ["an empty list where one item is the minimum", cluster({ gateway: { discovery: "Explicit", remotes: [] } })],
  ])("refuses %s", (_what, object) => {
    expect(errorsOf(validateResource("NatsCluster", object)).length).toBeGreaterThan(0);
  });

  it.each([
    ["a malformed duration", stream({ maxAge: "3 days" })],
    ["replicas above 5", stream({ replicas: 6 })],
    ["an unknown retention", stream({ retention: "Forever" })],
    [
      "a condition without lastTransitionTime",
      { ...stream({}), status: { conditions: [{ type: "Ready", status: "True", reason: "Synced", message: "" }] } },
    ],
    [
      "a condition status outside True/False/Unknown",
      {
        ...stream({}),
        status: {
          conditions: [
            { type: "Ready", status: "Yes", reason: "Synced", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" },
          ],
        },
      },
    ],
    ["a time that is not RFC 3339", { ...stream({}), status: { lastSyncedTime: "yesterday" } }],
  ])("refuses %s on a NatsStream", (_what, object) => {
    expect(errorsOf(validateResource("NatsStream", object)).length).toBeGreaterThan(0);
  });

  it("accepts quantities as numbers or strings", () => {
    expect(validateResource("NatsStream", stream({ maxBytes: -1 })).ok).toBe(true);
    expect(validateResource("NatsStream", stream({ maxBytes: "-1" })).ok).toBe(true);
    expect(validateResource("NatsStream", stream({ maxBytes: "5Gi" })).ok).toBe(true);
  });

  it("names the offending field", () => {
    const errors = errorsOf(validateResource("NatsCluster", cluster({ replicas: 0 })));
    expect(errors).toContainEqual(expect.objectContaining({ path: "/spec/replicas" }));
  });

  it("ignores unknown fields by default and refuses them on request", () => {
    const object = cluster({ leafRemotes: [{ connectionRef: { name: "hub" }, localAccount: "x" }] });
    expect(validateResource("NatsCluster", object).ok).toBe(true);
    const errors = errorsOf(validateResource("NatsCluster", object, { unknownFields: "reject" }));
    expect(errors).toContainEqual(
      expect.objectContaining({ path: "/spec/leafRemotes/0", message: expect.stringContaining("localAccount") }),
    );
  });

  it("keeps the free-form pod template open even when refusing unknown fields", () => {
    const object = cluster({ podTemplate: { spec: { nodeSelector: { zone: "a" }, anything: { goes: true } } } });
    expect(validateResource("NatsCluster", object, { unknownFields: "reject" }).ok).toBe(true);
  });

  it("refuses the wrong kind or apiVersion for the requested kind", () => {
    expect(validateResource("NatsStream", cluster({})).ok).toBe(false);
    expect(validateResource("NatsCluster", { ...cluster({}), apiVersion: "cluster.nats.mikluko.io/v1beta1" }).ok).toBe(
      false,
    );
  });
});

describe("validateAnyResource", () => {
  it("finds the kind from apiVersion and kind", () => {
    expect(validateAnyResource(cluster({})).ok).toBe(true);
    expect(validateAnyResource(stream({})).ok).toBe(true);
  });

  it.each([
    ["null", null],
    ["a string", "NatsCluster"],
    ["an array", [cluster({})]],
    ["an unknown kind", { apiVersion: "v1", kind: "ConfigMap", metadata: {} }],
    ["a kind under an old group", { ...cluster({}), apiVersion: "cluster.nats.mikluko.io/v1beta1" }],
  ])("returns errors, never throws, for %s", (_what, value) => {
    const result = validateAnyResource(value);
    expect(result.ok).toBe(false);
    expect(errorsOf(result).length).toBeGreaterThan(0);
  });
});
