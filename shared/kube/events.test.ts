import { describe, expect, it } from "@jest/globals";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createKube } from "./client.ts";
import { createEventRecorder, limited } from "./events.ts";

const regarding = {
  apiVersion: "jetstream.nats-operator.io/v1beta1",
  kind: "NatsStream",
  metadata: { name: "orders", namespace: "team-a", uid: "u-1", resourceVersion: "7" },
};

describe("the Event recorder", () => {
  it("writes a note with URL credentials redacted", async () => {
    const transport = scriptedTransport();
    await createEventRecorder(createKube(transport), "nats-operator.io/sync-stream", "pod").record(
      regarding,
      "Warning",
      "ConnectFailed",
      "cannot connect to nats://user:pass@host:4222",
    );
    expect(transport.requests[0]).toMatchObject({
      options: { body: { note: "cannot connect to nats://***@host:4222" } },
    });
  });

  it("writes at most four Events at once for one API client, each record resolving once its Event is written", async () => {
    const transport = scriptedTransport();
    let inFlight = 0;
    let most = 0;
    const request = transport.request;
    transport.request = async (...args) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return request(...args);
    };
    const kube = createKube(transport);
    // Recorders made per event share the client's turns.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createEventRecorder(kube, "nats-operator.io/sync-stream", "pod").record(
          regarding,
          "Normal",
          "Created",
          `n${i}`,
        ),
      ),
    );
    expect(transport.requests).toHaveLength(20);
    expect(most).toBe(4);
  });
});

describe("limited", () => {
  it("runs work in the order it came, never more than its slots at once, and frees a slot on failure", async () => {
    const take = limited(2);
    const order: number[] = [];
    let active = 0;
    let most = 0;
    const work = (i: number) =>
      take(async () => {
        most = Math.max(most, ++active);
        order.push(i);
        await new Promise((resolve) => setTimeout(resolve, 1));
        active--;
        if (i === 1) throw new Error("no");
        return i;
      });
    const results = await Promise.allSettled(Array.from({ length: 7 }, (_, i) => work(i)));
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
  });
});
