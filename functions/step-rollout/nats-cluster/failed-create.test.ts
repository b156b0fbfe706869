import { describe, expect, it } from "@jest/globals";
import {
  CLAIM_TERMINATING,
  failedCreateEvent,
  POD_SECURITY_REFUSAL,
  QUOTA_REFUSAL,
} from "../../../test/fixtures/cluster/pod-failures.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { currentFailedCreate, lastChanged, readFailedCreate } from "./failed-create.ts";
import type { StatefulSet } from "./types.ts";

/** The StatefulSet demo-0, its spec last written at `specAt` and its status at `statusAt`. */
function statefulSet(specAt: string | undefined, statusAt = "2026-12-03T09:59:59Z"): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: {
      name: "demo-0",
      namespace: "nats-system",
      uid: "sts-uid-0",
      managedFields: [
        ...(specAt ? [{ manager: "nats-operator.io/render-cluster", time: specAt }] : []),
        { manager: "kube-controller-manager", time: statusAt, subresource: "status" },
      ],
    },
    spec: { template: { spec: {} } },
  };
}

describe("the FailedCreate Event that counts for a server without its pod", () => {
  it("is the newest one, however the list is ordered", () => {
    const events = [
      failedCreateEvent(QUOTA_REFUSAL, "2026-12-03T09:50:00Z"),
      failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z"),
      failedCreateEvent(QUOTA_REFUSAL, "2026-12-03T09:52:00Z"),
    ];
    expect(currentFailedCreate(events, statefulSet("2026-12-03T09:40:00Z"))).toEqual({
      message: POD_SECURITY_REFUSAL,
      at: "2026-12-03T09:55:00Z",
    });
  });

  it("is none when the newest was seen before the StatefulSet last changed: it was about the template replaced", () => {
    const events = [failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z")];
    expect(currentFailedCreate(events, statefulSet("2026-12-03T09:56:00Z"))).toBeUndefined();
  });

  it("counts one seen in the same second as the change", () => {
    const events = [failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:56:00Z")];
    expect(currentFailedCreate(events, statefulSet("2026-12-03T09:56:00Z"))?.message).toBe(POD_SECURITY_REFUSAL);
  });

  it("does not take the controller's status writes for a change of the StatefulSet", () => {
    const events = [failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z")];
    const sts = statefulSet("2026-12-03T09:40:00Z", "2026-12-03T09:58:00Z");
    expect(lastChanged(sts)).toBe(Date.parse("2026-12-03T09:40:00Z") / 1000);
    expect(currentFailedCreate(events, sts)?.message).toBe(POD_SECURITY_REFUSAL);
  });

  it("ignores Events of a StatefulSet of the same name that was deleted and made again", () => {
    const events = [failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z", { uid: "sts-uid-before" })];
    expect(currentFailedCreate(events, statefulSet("2026-12-03T09:40:00Z"))).toBeUndefined();
  });

  it("ignores Events of other StatefulSets, reasons and types", () => {
    const other = failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z", { name: "demo-1" });
    const normal = { ...failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z"), type: "Normal" };
    const created = { ...failedCreateEvent("create Pod demo-0-0 successful", "2026-12-03T09:55:00Z") };
    created.reason = "SuccessfulCreate";
    expect(currentFailedCreate([other, normal, created], statefulSet("2026-12-03T09:40:00Z"))).toBeUndefined();
  });

  it("reads the time an events.k8s.io series was last observed", () => {
    const series = {
      ...failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:30:00Z"),
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: "2026-12-03T09:30:00.000000Z",
      series: { lastObservedTime: "2026-12-03T09:57:00.123456Z" },
    };
    expect(currentFailedCreate([series], statefulSet("2026-12-03T09:40:00Z"))?.at).toBe("2026-12-03T09:57:00.123456Z");
  });

  it("takes every Event of the StatefulSet as current when its managedFields say nothing", () => {
    const events = [failedCreateEvent(CLAIM_TERMINATING, "2026-12-03T09:55:00Z")];
    expect(currentFailedCreate(events, statefulSet(undefined))?.message).toBe(CLAIM_TERMINATING);
  });

  it("is read with a field selector naming the StatefulSet and the reason", async () => {
    const kube = memoryKube([
      failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z"),
      failedCreateEvent(QUOTA_REFUSAL, "2026-12-03T09:58:00Z", { name: "demo-1", uid: "sts-uid-1" }),
    ] as KubeObject[]);
    const list = kube.list.bind(kube);
    const asked: unknown[] = [];
    kube.list = (query) => {
      asked.push(query);
      return list(query);
    };
    expect(await readFailedCreate(kube, statefulSet("2026-12-03T09:40:00Z"))).toEqual({
      message: POD_SECURITY_REFUSAL,
      at: "2026-12-03T09:55:00Z",
    });
    expect(asked).toEqual([
      {
        apiVersion: "v1",
        kind: "Event",
        namespace: "nats-system",
        fieldSelector: "involvedObject.kind=StatefulSet,involvedObject.name=demo-0,reason=FailedCreate",
      },
    ]);
  });

  it("is none, not a failed observation, when the Events cannot be read", async () => {
    const kube = memoryKube([]);
    kube.list = () => Promise.reject(new Error("events is forbidden"));
    expect(await readFailedCreate(kube, statefulSet("2026-12-03T09:40:00Z"))).toBeUndefined();
  });
});
