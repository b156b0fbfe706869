import { describe, expect, it } from "@jest/globals";
import { containsRendered } from "./contains.ts";

describe("containsRendered", () => {
  it("ignores what the API server added", () => {
    expect(
      containsRendered(
        { spec: { clusterIP: "10.0.0.1", ports: [{ port: 4222, protocol: "TCP", nodePort: 1 }] } },
        { spec: { ports: [{ port: 4222 }] } },
      ),
    ).toBe(true);
  });

  it("notices a changed or missing rendered field", () => {
    expect(containsRendered({ spec: { ports: [{ port: 4222 }] } }, { spec: { ports: [{ port: 4223 }] } })).toBe(false);
    expect(containsRendered({ spec: {} }, { spec: { maxUnavailable: 1 } })).toBe(false);
  });

  it("notices a list of another length", () => {
    expect(containsRendered({ ports: [{ port: 1 }, { port: 2 }] }, { ports: [{ port: 1 }] })).toBe(false);
  });
});
