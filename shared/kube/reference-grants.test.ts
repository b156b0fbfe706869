import { describe, expect, it } from "@jest/globals";
import { grantAdmits, type GrantSpec } from "./reference-grants.ts";

const from = { group: "jetstream.nats-operator.io", kind: "NatsStream", namespace: "team-a" };
const to = { group: "nats-operator.io", kind: "NatsConnection", namespace: "shared", name: "main" };
const grant = (spec: Partial<GrantSpec>): GrantSpec => ({
  from: [{ group: "jetstream.nats-operator.io", kind: "NatsStream", namespace: "team-a" }],
  to: [{ group: "nats-operator.io", kind: "NatsConnection" }],
  ...spec,
});

describe("reference grants", () => {
  it("admit every object of the kind when the target entry names none", () => {
    expect(grantAdmits(grant({}), from, to)).toBe(true);
  });

  it("admit only the named object when the target entry names one", () => {
    expect(
      grantAdmits(grant({ to: [{ group: "nats-operator.io", kind: "NatsConnection", name: "main" }] }), from, to),
    ).toBe(true);
    expect(
      grantAdmits(grant({ to: [{ group: "nats-operator.io", kind: "NatsConnection", name: "other" }] }), from, to),
    ).toBe(false);
  });

  it("match the referrer's namespace, kind and group exactly", () => {
    expect(grantAdmits(grant({}), { ...from, namespace: "team-b" }, to)).toBe(false);
    expect(grantAdmits(grant({}), { ...from, kind: "NatsConsumer" }, to)).toBe(false);
    expect(grantAdmits(grant({}), { ...from, group: "nats-operator.io" }, to)).toBe(false);
  });

  it("do not admit another target kind", () => {
    expect(grantAdmits(grant({}), from, { ...to, kind: "NatsAccount" })).toBe(false);
  });
});
