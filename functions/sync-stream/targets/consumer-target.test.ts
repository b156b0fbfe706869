import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import type { Wire } from "../config/fields.ts";
import { isSpecProblem, type Target } from "./kinds.ts";
import { consumerTarget } from "./consumer-target.ts";
import { planObject } from "../plan/plan.ts";

const fixture = (name: string): Wire =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/jetstream/${name}`, import.meta.url), "utf8")) as Wire;

function target(spec: Record<string, unknown>): Target {
  const t = consumerTarget(
    { metadata: { name: "ledger-audit" }, spec: { stream: "ORDERS", name: "audit", ...spec } },
    "ORDERS",
  );
  if (isSpecProblem(t)) throw new Error(t.problem);
  return t;
}

const plan = (spec: Record<string, unknown>, server: Wire | undefined) => {
  const t = target(spec);
  return planObject({
    model: t.model,
    uid: "uid-audit",
    adoptionPolicy: "Never",
    desired: t.desired,
    specMetadata: t.specMetadata,
    server,
    foreignOwnerExists: false,
    pendingEdit: false,
  });
};

describe("NatsConsumer planning", () => {
  it("asks for a durable consumer named after spec.name, in the server's spelling", () => {
    expect(
      target({
        deliverPolicy: "All",
        ackPolicy: "Explicit",
        ackWait: "30s",
        maxDeliver: 10,
        filterSubjects: ["payments.settled.>"],
      }).desired,
    ).toEqual({
      durable_name: "audit",
      name: "audit",
      deliver_policy: "all",
      ack_policy: "explicit",
      ack_wait: 30e9,
      max_deliver: 10,
      filter_subjects: ["payments.settled.>"],
    });
  });

  it("settles when the server shows only its own defaults besides spec (ack wait, ack pending, max waiting)", () => {
    expect(plan({ deliverPolicy: "All", ackPolicy: "Explicit" }, fixture("consumer-explicit.json"))).toEqual({
      kind: "settled",
      origin: "Created",
    });
  });

  it("updates a changed mutable field in place", () => {
    const p = plan({ ackPolicy: "Explicit", maxDeliver: 5 }, fixture("consumer-explicit.json"));
    expect(p.kind === "update" && p.drift).toEqual(["max_deliver"]);
  });

  it("goes Terminal ImmutableField when a field the server cannot change differs", () => {
    const p = plan({ deliverPolicy: "New", ackPolicy: "Explicit" }, fixture("consumer-explicit.json"));
    expect(p.kind === "terminal" && p.reason).toBe("ImmutableField");
    expect(p.kind === "terminal" && p.message).toContain("deliver_policy");
  });

  it("recreates instead when recreateOnImmutableChange is set", () => {
    const p = plan(
      { deliverPolicy: "New", ackPolicy: "Explicit", recreateOnImmutableChange: true },
      fixture("consumer-explicit.json"),
    );
    expect(p.kind === "recreate" && p.changed).toEqual(["deliver_policy"]);
  });

  it("treats switching a pull consumer to push as immutable", () => {
    const p = plan({ ackPolicy: "Explicit", deliverSubject: "deliver.audit" }, fixture("consumer-explicit.json"));
    expect(p.kind === "terminal" && p.message).toContain("pull to push");
  });

  it("does not call an omitted immutable field a change when the server holds its default", () => {
    expect(plan({ ackPolicy: "Explicit", replayPolicy: "Instant" }, fixture("consumer-explicit.json")).kind).toBe(
      "settled",
    );
  });
});
