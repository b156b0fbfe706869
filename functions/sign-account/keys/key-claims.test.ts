import { describe, expect, it } from "@jest/globals";
import { claimsOf, heldBy, keyHolder, type KeyHolding } from "./key-claims.ts";

const OLD = "2026-01-01T00:00:00Z";
const NEW = "2026-02-01T00:00:00Z";
const holding = (holder: string, createdAt: string, keys: Omit<KeyHolding, "holder" | "createdAt">): KeyHolding => ({
  holder,
  createdAt,
  ...keys,
});
const holderOf = (self: KeyHolding, key: string, others: KeyHolding[]) =>
  keyHolder(self, key, others.flatMap(claimsOf))?.holder;

describe("who a key belongs to under one operator", () => {
  it("refuses an older object naming in spec a key a newer one recorded in status", () => {
    const victim = holding("NatsAccount team-b/app", NEW, { recorded: "AB" });
    const attacker = holding("NatsAccount team-a/app", OLD, { recorded: "AA", named: "AB" });
    expect(holderOf(attacker, "AB", [victim])).toBe("NatsAccount team-b/app");
    // The victim keeps it: the attacker only names it.
    expect(holderOf(victim, "AB", [attacker])).toBeUndefined();
  });

  it("keeps a key for a newer object holding its seed against an older one only naming it", () => {
    const generating = holding("NatsAccount team-b/app", NEW, { seed: "AB" });
    const naming = holding("NatsAccount team-a/app", OLD, { named: "AB" });
    expect(holderOf(naming, "AB", [generating])).toBe("NatsAccount team-b/app");
    expect(holderOf(generating, "AB", [naming])).toBeUndefined();
  });

  it("gives a key two objects claim alike to the older, by name when created at once", () => {
    const older = holding("NatsAccount a/one", OLD, { seed: "AK" });
    const newer = holding("NatsAccount a/two", NEW, { seed: "AK" });
    expect(holderOf(newer, "AK", [older])).toBe("NatsAccount a/one");
    expect(holderOf(older, "AK", [newer])).toBeUndefined();
    const twin = holding("NatsAccount a/alpha", OLD, { recorded: "AK" });
    const same = holding("NatsAccount a/one", OLD, { recorded: "AK" });
    expect(holderOf(same, "AK", [twin])).toBe("NatsAccount a/alpha");
  });

  it("lets an object take a key no one else claims, and ignores its own claims listed among others", () => {
    const self = holding("NatsAccount a/one", NEW, { named: "AK" });
    expect(holderOf(self, "AK", [holding("NatsAccount a/two", OLD, { recorded: "AX" }), self])).toBeUndefined();
  });

  it("names how the holder holds the key", () => {
    const [claim] = claimsOf(holding("NatsSystemAccount p/sys", OLD, { recorded: "AS", named: "AS" }));
    expect(claim?.kind).toBe("status");
    expect(heldBy(claim as NonNullable<typeof claim>)).toBe("NatsSystemAccount p/sys, which records it in status");
  });
});
