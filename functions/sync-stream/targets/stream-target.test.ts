import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import type { Wire } from "../config/fields.ts";
import { isSpecProblem, type Target } from "./kinds.ts";
import { markerOriginKey, markerOwnerKey } from "../config/marker.ts";
import { streamTarget } from "./stream-target.ts";
import { planObject, type AdoptionPolicy, type PlanInput } from "../plan/plan.ts";

const fixture = (name: string): Wire =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/jetstream/${name}`, import.meta.url), "utf8")) as Wire;

function target(spec: Record<string, unknown>, name = "orders"): Target {
  const t = streamTarget({ metadata: { name }, spec: { connectionRef: { name: "demo" }, ...spec } });
  if (isSpecProblem(t)) throw new Error(t.problem);
  return t;
}

function plan(
  spec: Record<string, unknown>,
  server: Wire | undefined,
  options: Partial<PlanInput> & { adoptionPolicy?: AdoptionPolicy } = {},
) {
  const t = target(spec);
  return planObject({
    model: t.model,
    uid: "uid-orders",
    adoptionPolicy: "Never",
    desired: t.desired,
    specMetadata: t.specMetadata,
    server,
    foreignOwnerExists: false,
    pendingEdit: false,
    ...options,
  });
}

const story1 = {
  name: "ORDERS",
  subjects: ["orders.>"],
  storage: "File",
  replicas: 3,
  retention: "Limits",
  maxAge: "72h",
  maxBytes: "5Gi",
};

describe("NatsStream planning", () => {
  it("turns spec into the server's spelling: enums lower-case, durations in ns, quantities in bytes", () => {
    expect(target(story1).desired).toEqual({
      name: "ORDERS",
      subjects: ["orders.>"],
      storage: "file",
      num_replicas: 3,
      retention: "limits",
      max_age: 72 * 3600e9,
      max_bytes: 5 * 2 ** 30,
    });
  });

  it("names the server stream after metadata.name when spec.name is omitted", () => {
    expect(target({ subjects: ["a"] }, "payments").stream).toBe("payments");
  });

  it("creates an absent stream carrying the ownership marker with origin Created", () => {
    const p = plan(story1, undefined);
    expect(p.kind).toBe("create");
    if (p.kind !== "create") return;
    expect(p.config.metadata).toEqual({ [markerOwnerKey]: "uid-orders", [markerOriginKey]: "Created" });
    expect(p.config.max_age).toBe(72 * 3600e9);
  });

  it("merges spec.metadata with the marker on create", () => {
    const p = plan({ ...story1, metadata: { team: "shop" } }, undefined);
    expect(p.kind === "create" && p.config.metadata).toEqual({
      team: "shop",
      [markerOwnerKey]: "uid-orders",
      [markerOriginKey]: "Created",
    });
  });

  it("waits and never creates under Adopt when the stream does not exist", () => {
    const p = plan({ name: "PAYMENTS" }, undefined, { adoptionPolicy: "Adopt" });
    expect(p).toEqual({
      kind: "await",
      message: "stream PAYMENTS does not exist; adoptionPolicy Adopt waits for it and never creates it",
    });
  });

  it("goes Terminal ExistsUnowned under Never when an unmarked stream exists, with the story's message", () => {
    const p = plan({ name: "LEDGER", subjects: ["ledger.>"], replicas: 3 }, fixture("stream-unowned.json"));
    expect(p).toEqual({
      kind: "terminal",
      reason: "ExistsUnowned",
      message:
        "stream LEDGER exists and carries no ownership marker; set spec.adoptionPolicy to Adopt or AdoptOrCreate to take it over",
    });
  });

  it("goes Terminal OwnedByOther when the marker names another resource that still exists", () => {
    const p = plan({ subjects: ["orders.>"] }, fixture("stream-minimal.json"), {
      uid: "uid-someone-else",
      foreignOwnerExists: true,
      adoptionPolicy: "AdoptOrCreate",
    });
    expect(p.kind === "terminal" && p.reason).toBe("OwnedByOther");
  });

  it("treats the marker of a vanished resource like no marker", () => {
    expect(plan({ subjects: ["orders.>"] }, fixture("stream-minimal.json"), { uid: "uid-new" }).kind).toBe("terminal");
    const adopted = plan({ subjects: ["orders.>"] }, fixture("stream-minimal.json"), {
      uid: "uid-new",
      adoptionPolicy: "AdoptOrCreate",
    });
    expect(adopted.kind === "update" && adopted.claimed).toBe(true);
  });

  it("settles when the server holds spec once its defaults are taken into account", () => {
    expect(plan({ name: "ORDERS", subjects: ["orders.>"] }, fixture("stream-minimal.json"))).toEqual({
      kind: "settled",
      origin: "Created",
    });
  });

  it("does not count a value the server normalises (0 for no limit) as drift", () => {
    expect(
      plan({ name: "ORDERS", subjects: ["orders.>"], maxMsgs: 0, maxBytes: "0" }, fixture("stream-minimal.json")).kind,
    ).toBe("settled");
  });

  it("reports drift in a field the spec sets and sends the whole server config with spec laid over it", () => {
    const server = { ...fixture("stream-minimal.json"), subjects: ["orders.>", "extra.>"], unmodelled_future_key: 7 };
    const p = plan({ name: "ORDERS", subjects: ["orders.>"] }, server);
    expect(p.kind).toBe("update");
    if (p.kind !== "update") return;
    expect(p.drift).toEqual(["subjects"]);
    expect(p.edit).toBe(false);
    expect(p.config.subjects).toEqual(["orders.>"]);
    expect(p.config.unmodelled_future_key).toBe(7);
    expect(p.config.duplicate_window).toBe(120e9);
  });

  it("puts a field the spec is silent about back to the server default on a stream it created", () => {
    const server = { ...fixture("stream-minimal.json"), max_age: 3600e9 };
    const p = plan({ name: "ORDERS", subjects: ["orders.>"] }, server);
    expect(p.kind === "update" && p.drift).toEqual(["max_age"]);
    expect(p.kind === "update" && "max_age" in p.config).toBe(false);
  });

  it("keeps an adopted stream's config where the spec is silent", () => {
    const server = {
      ...fixture("stream-unowned.json"),
      metadata: {
        ...(fixture("stream-unowned.json").metadata as object),
        [markerOwnerKey]: "uid-orders",
        [markerOriginKey]: "Adopted",
      },
    };
    expect(plan({ name: "LEDGER", subjects: ["ledger.>"] }, server, { adoptionPolicy: "AdoptOrCreate" })).toEqual({
      kind: "settled",
      origin: "Adopted",
    });
  });

  it("applies spec over an unmarked stream under AdoptOrCreate, as an edit, keeping the server's user metadata", () => {
    const p = plan(
      { name: "LEDGER", subjects: ["ledger.>"], replicas: 1, maxAge: "2h" },
      fixture("stream-unowned.json"),
      { adoptionPolicy: "AdoptOrCreate" },
    );
    expect(p.kind).toBe("update");
    if (p.kind !== "update") return;
    expect(p.claimed).toBe(true);
    expect(p.edit).toBe(true);
    expect(p.origin).toBe("Adopted");
    expect(p.config.max_age).toBe(2 * 3600e9);
    expect(p.config.metadata).toEqual({ team: "ledger", [markerOwnerKey]: "uid-orders", [markerOriginKey]: "Adopted" });
  });

  it("takes an unmarked stream as it is under Adopt: only the marker is written", () => {
    const server = fixture("stream-unowned.json");
    const p = plan({ name: "LEDGER" }, server, { adoptionPolicy: "Adopt" });
    expect(p.kind === "update" && p.drift).toEqual(["metadata"]);
    expect(p.kind === "update" && p.config.max_age).toBe(server.max_age);
  });

  it("calls a difference at a generation not yet applied an edit, not drift", () => {
    const p = plan({ name: "ORDERS", subjects: ["orders.new.>"] }, fixture("stream-minimal.json"), {
      pendingEdit: true,
    });
    expect(p.kind === "update" && p.edit).toBe(true);
  });

  it("ignores the server's reserved _nats. metadata and sees removed user metadata as drift", () => {
    const server = { ...fixture("stream-minimal.json") };
    server.metadata = { ...(server.metadata as object), stray: "x" };
    const p = plan({ name: "ORDERS", subjects: ["orders.>"], metadata: {} }, server);
    expect(p.kind === "update" && p.drift).toEqual(["metadata"]);
  });

  it("expects the duplicate window to follow a max age shorter than two minutes", () => {
    const server = { ...fixture("stream-minimal.json"), max_age: 60e9, duplicate_window: 60e9 };
    expect(plan({ name: "ORDERS", subjects: ["orders.>"], maxAge: "1m" }, server).kind).toBe("settled");
  });

  it("refuses a spec value it cannot read before asking the server", () => {
    expect(isSpecProblem(streamTarget({ metadata: { name: "x" }, spec: { maxAge: "forever" } }))).toBe(true);
  });
});
