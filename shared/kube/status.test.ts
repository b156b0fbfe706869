import { describe, expect, it } from "@jest/globals";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createKube } from "./client.ts";
import { writeStatusIfChanged } from "./status.ts";

const object = {
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name: "orders", namespace: "team-a", generation: 3 },
  status: { observedGeneration: 3, phase: "Ready" },
};

describe("writeStatusIfChanged", () => {
  it("writes nothing when the status is what the object already shows", async () => {
    const transport = scriptedTransport();
    expect(await writeStatusIfChanged(createKube(transport), object, { phase: "Ready" }, "m")).toBe(false);
    expect(transport.requests).toEqual([]);
  });

  it("writes a changed status stamped with the generation it describes", async () => {
    const transport = scriptedTransport();
    expect(await writeStatusIfChanged(createKube(transport), object, { phase: "Terminal" }, "m")).toBe(true);
    expect(transport.requests[0]?.options.body).toMatchObject({ status: { phase: "Terminal", observedGeneration: 3 } });
  });

  it("carries the resourceVersion it read as a precondition when guarded", async () => {
    const transport = scriptedTransport();
    const read = { ...object, metadata: { ...object.metadata, resourceVersion: "77" } };
    await writeStatusIfChanged(createKube(transport), read, { phase: "Terminal" }, "m", { guarded: true });
    expect(transport.requests[0]?.options.body).toMatchObject({
      metadata: { name: "orders", namespace: "team-a", resourceVersion: "77" },
    });
  });
});
