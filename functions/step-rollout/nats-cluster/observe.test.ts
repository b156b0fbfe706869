import { describe, expect, it } from "@jest/globals";
import type { KubeObject, ListQuery } from "../../../shared/kube/index.ts";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import {
  CRASH_LOOPING,
  EXPORTER_RUNNING,
  failedCreateEvent,
  POD_SECURITY_REFUSAL,
  podOf,
} from "../../../test/fixtures/cluster/pod-failures.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { planCluster } from "../../cluster/index.ts";
import { observeCluster } from "./observe.ts";
import type { StatefulSet } from "./types.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");

describe("observing the servers' pods", () => {
  it("reads each server's pod, and the FailedCreate Events only of a server without one", async () => {
    const cluster = demoCluster({ jetstream: undefined });
    const statefulSets = planCluster({ cluster }).servers.map((s): StatefulSet => ({
      ...(s.statefulSet as StatefulSet),
      metadata: {
        ...s.statefulSet.metadata,
        uid: `sts-uid-${s.name.slice(-1)}`,
        managedFields: [{ manager: "nats-operator.io/render-cluster", time: "2026-12-03T09:40:00Z" }],
      },
    }));
    const kube = memoryKube([
      cluster,
      ...statefulSets,
      podOf("demo-1", [EXPORTER_RUNNING]),
      podOf("demo-2", [CRASH_LOOPING]),
      failedCreateEvent(POD_SECURITY_REFUSAL, "2026-12-03T09:55:00Z"),
    ] as KubeObject[]);
    const list = kube.list.bind(kube);
    const asked: ListQuery[] = [];
    kube.list = (query) => {
      asked.push(query);
      return list(query);
    };
    const seen = await observeCluster(kube, cluster, () => "http://127.0.0.1:9", NOW);
    expect([...seen.pods.keys()]).toEqual(["demo-1", "demo-2"]);
    expect(seen.failedCreates).toEqual(
      new Map([["demo-0", { message: POD_SECURITY_REFUSAL, at: "2026-12-03T09:55:00Z" }]]),
    );
    expect(asked.filter((q) => q.kind === "Event").map((q) => q.fieldSelector)).toEqual([
      "involvedObject.kind=StatefulSet,involvedObject.name=demo-0,reason=FailedCreate",
    ]);
  });
});

describe("observing what removed servers left (H10)", () => {
  it("reads a Deleting server's ConfigMap whoever controls it, and each recorded leftover by name", async () => {
    const cluster = {
      ...demoCluster({ jetstream: undefined, replicas: 2 }),
      status: {
        removals: [{ name: "demo-2", phase: "Deleting" as const }],
        leftovers: [
          { kind: "PersistentVolumeClaim" as const, name: "data-demo-3-0", server: "demo-3" },
          { kind: "ConfigMap" as const, name: "demo-3-config", server: "demo-3" },
        ],
      },
    };
    const object = (kind: string, name: string): KubeObject => ({
      apiVersion: "v1",
      kind,
      metadata: { name, namespace: "nats-system" },
    });
    const kube = memoryKube([
      cluster,
      object("ConfigMap", "demo-2-config"),
      object("PersistentVolumeClaim", "data-demo-3-0"),
    ] as KubeObject[]);
    const seen = await observeCluster(kube, cluster, () => "http://127.0.0.1:9", NOW);
    expect([...(seen.deletingConfigMaps?.keys() ?? [])]).toEqual(["demo-2"]);
    expect([...(seen.leftovers?.keys() ?? [])]).toEqual(["PersistentVolumeClaim/data-demo-3-0"]);
  });
});
