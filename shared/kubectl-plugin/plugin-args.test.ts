import { describe, expect, it } from "@jest/globals";
import { parseResourceRef } from "./resource-ref.ts";
import { formatFields, formatTable } from "./table.ts";

describe("kind/name as kubectl takes it", () => {
  it("matches the kind, its singular, plural and short names", () => {
    expect(parseResourceRef("natscluster/demo")?.kind.kind).toBe("NatsCluster");
    expect(parseResourceRef("natsclusters/demo")?.kind.kind).toBe("NatsCluster");
    expect(parseResourceRef("NatsStream/orders")).toMatchObject({ kind: { kind: "NatsStream" }, name: "orders" });
    expect(parseResourceRef("natsuser/app")?.kind.apiVersion).toBe("auth.nats-operator.io/v1beta1");
  });

  it("refuses what is not kind/name", () => {
    expect(parseResourceRef("demo")).toBeUndefined();
    expect(parseResourceRef("pods/demo")).toBeUndefined();
    expect(parseResourceRef("natscluster/a/b")).toBeUndefined();
  });
});

describe("aligned text", () => {
  it("pads each column to its widest cell and leaves the last unpadded", () => {
    expect(
      formatTable([
        ["A", "BB", "C"],
        ["aaa", "b", "c"],
      ]),
    ).toBe("A    BB  C\naaa  b   c\n");
  });

  it("aligns values after their labels and leaves out the unknown", () => {
    expect(
      formatFields([
        ["One", "1"],
        ["Three", "3"],
        ["Gone", undefined],
      ]),
    ).toBe("One:    1\nThree:  3\n");
  });
});
