import { describe, expect, it } from "@jest/globals";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createKube } from "./client.ts";
import { KubeRequestError } from "./errors.ts";
import { writeStatus } from "./status.ts";

const object = {
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name: "orders", namespace: "team-a", generation: 3 },
  status: { observedGeneration: 3, phase: "Ready" },
};
const path = "/apis/jetstream.nats-operator.io/v1beta1/namespaces/team-a/natsstreams/orders/status";
const read = { ...object, metadata: { ...object.metadata, resourceVersion: "77" } };

describe("writeStatus", () => {
  it("writes nothing when the status is what the object already shows", async () => {
    const transport = scriptedTransport();
    const written = await writeStatus(createKube(transport), object, { observedGeneration: 3, phase: "Ready" }, "m");
    expect(written).toEqual({ kind: "unchanged" });
    expect(transport.requests).toEqual([]);
  });

  it("applies a changed status through the status subresource under the function's field manager", async () => {
    const transport = scriptedTransport();
    const written = await writeStatus(createKube(transport), object, { observedGeneration: 3, phase: "Terminal" }, "m");
    expect(written.kind).toBe("written");
    expect(transport.requests[0]).toMatchObject({
      method: "PATCH",
      path,
      options: { query: { fieldManager: "m" }, body: { status: { phase: "Terminal", observedGeneration: 3 } } },
    });
  });

  it("redacts URL credentials in any string, and reads the redacted status it stored as unchanged", async () => {
    const transport = scriptedTransport();
    const leaking = { observedGeneration: 3, phase: "cannot connect to nats://user:pass@host:4222" };
    await writeStatus(createKube(transport), object, leaking, "m");
    expect(transport.requests[0]).toMatchObject({
      options: { body: { status: { phase: "cannot connect to nats://***@host:4222" } } },
    });
    const stored = { ...object, status: { observedGeneration: 3, phase: "cannot connect to nats://***@host:4222" } };
    expect(await writeStatus(createKube(transport), stored, leaking, "m")).toEqual({ kind: "unchanged" });
  });

  it("carries the resourceVersion it read as a precondition when guarded", async () => {
    const transport = scriptedTransport();
    await writeStatus(createKube(transport), read, { phase: "Terminal" }, "m", { guarded: true });
    expect(transport.requests[0]?.options.body).toMatchObject({
      metadata: { name: "orders", namespace: "team-a", resourceVersion: "77" },
    });
  });

  it("answers a conflict, not an exception, when a guarded write loses to a newer one", async () => {
    const lost = new KubeRequestError(409, "Conflict", "the object has been modified");
    const transport = scriptedTransport({ [`PATCH ${path}`]: [lost] });
    const written = await writeStatus(createKube(transport), read, { phase: "Terminal" }, "m", { guarded: true });
    expect(written).toEqual({ kind: "conflict", error: lost });
  });

  it("throws every failure other than a lost claim", async () => {
    const invalid = new KubeRequestError(422, "Invalid", "status.phase: Unsupported value");
    const transport = scriptedTransport({ [`PATCH ${path}`]: [invalid] });
    await expect(writeStatus(createKube(transport), read, { phase: "Bogus" }, "m", { guarded: true })).rejects.toBe(
      invalid,
    );
  });

  it("compares only the fields the manager owns when told which they are", async () => {
    const transport = scriptedTransport();
    const owned = (status: typeof object.status | undefined) => ({ phase: status?.phase });
    const written = await writeStatus(createKube(transport), object, { phase: "Ready" }, "m", { owned });
    expect(written).toEqual({ kind: "unchanged" });
    expect(transport.requests).toEqual([]);
  });

  it("replaces the whole status guarded by the resourceVersion it read, so left-out entries go", async () => {
    const transport = scriptedTransport({ [`PUT ${path}`]: [{ ...read, status: { phase: "Ready" } }] });
    const written = await writeStatus(createKube(transport), read, { phase: "Ready" }, "m", { whole: true });
    expect(written).toEqual({ kind: "written", object: { ...read, status: { phase: "Ready" } } });
    expect(transport.requests[0]).toMatchObject({
      method: "PUT",
      path,
      options: {
        query: { fieldManager: "m" },
        body: { metadata: { resourceVersion: "77" }, status: { phase: "Ready" } },
      },
    });
    expect(transport.requests[0]?.options.body).not.toHaveProperty("status.observedGeneration");
  });
});
