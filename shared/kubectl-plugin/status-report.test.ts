import { describe, expect, it } from "@jest/globals";
import type { ResourceOf } from "../api/index.ts";
import { accountReport, clusterReport, formatStatus, streamReport } from "./status-report.ts";

const at = "2026-12-07T04:00:00Z";
const condition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
});

/** A 3-server cluster mid-rollout: demo-0 updated, demo-1 restarting, demo-2 pending, the gate closed. */
const midRollout = {
  metadata: { name: "demo", namespace: "nats" },
  status: {
    version: "2.15.2",
    replicas: 3,
    readyReplicas: 2,
    config: { revision: "bbbb", appliedBy: "Restart" as const, restartReason: "the image changed" },
    rollout: {
      targetRevision: "bbbb",
      updated: ["demo-0"],
      current: "demo-1",
      pending: ["demo-2"],
      gate: { waitingFor: "JetStreamCurrent", since: at },
    },
    removals: [{ name: "demo-3", phase: "Evacuating" as const, since: at }],
    servers: [
      { name: "demo-0", version: "2.15.2", ready: true, configRevision: "bbbb" },
      { name: "demo-1", version: "2.15.2", ready: false, configRevision: "aaaa" },
      { name: "demo-2", version: "2.15.2", ready: true, configRevision: "aaaa" },
    ],
    conditions: [
      condition("Ready", "False", "ServersNotReady", "2 of 3 servers ready"),
      condition("Progressing", "True", "GateBlocked", "waiting for demo-1's streams to catch up"),
      condition("Settled", "False", "RolloutInProgress", "1 of 3 servers updated"),
    ],
  },
} as ResourceOf<"NatsCluster">;

describe("status of a NatsCluster", () => {
  it("reports the servers, the running version, the rollout with its gate, removals and why it waits", () => {
    const report = clusterReport(midRollout);
    expect(report).toMatchObject({
      kind: "NatsCluster",
      namespace: "nats",
      name: "demo",
      version: "2.15.2",
      ready: { servers: 2, planned: 3 },
      rollout: {
        updated: ["demo-0"],
        current: "demo-1",
        pending: ["demo-2"],
        gate: { waitingFor: "JetStreamCurrent" },
      },
      removals: [{ name: "demo-3", phase: "Evacuating" }],
      progressing: { reason: "GateBlocked", message: "waiting for demo-1's streams to catch up" },
    });
    expect(report.servers.map((s) => [s.name, s.ready, s.configRevision])).toEqual([
      ["demo-0", true, "bbbb"],
      ["demo-1", false, "aaaa"],
      ["demo-2", true, "aaaa"],
    ]);
  });

  it("prints aligned fields, a server table and a condition table", () => {
    const text = formatStatus(clusterReport(midRollout));
    expect(text).toContain("NatsCluster:  nats/demo\n");
    expect(text).toContain("Version:      2.15.2\n");
    expect(text).toContain("Ready:        2/3 servers\n");
    expect(text).toContain("Config:       bbbb (Restart: the image changed)\n");
    expect(text).toContain("Progressing:  True GateBlocked: waiting for demo-1's streams to catch up\n");
    expect(text).toContain("Rollout:      target bbbb; updated demo-0; current demo-1; pending demo-2\n");
    expect(text).toContain(`Gate:         waiting for JetStreamCurrent since ${at}\n`);
    expect(text).toContain(`Removals:     demo-3 Evacuating since ${at}\n`);
    expect(text).toContain(
      [
        "SERVER  VERSION  READY  CONFIG REVISION",
        "demo-0  2.15.2   true   bbbb",
        "demo-1  2.15.2   false  aaaa",
        "demo-2  2.15.2   true   aaaa",
      ].join("\n"),
    );
    expect(text).toMatch(/^CONDITION\s+STATUS\s+REASON\s+SINCE\s+MESSAGE$/m);
    expect(text).toMatch(/^Settled\s+False\s+RolloutInProgress\s+\S+\s+1 of 3 servers updated$/m);
  });

  it("says what is not known yet for a cluster the operator has not reported on", () => {
    const text = formatStatus(
      clusterReport({ metadata: { name: "new", namespace: "nats" } } as ResourceOf<"NatsCluster">),
    );
    expect(text).toContain("Version:      mixed (servers differ)\n");
    expect(text).toContain("Ready:        0/0 servers\n");
    expect(text).toContain("No servers reported yet.");
    expect(text).toContain("No conditions yet");
    expect(text).not.toContain("Rollout:");
  });
});

describe("status of a NatsStream", () => {
  const stream = {
    metadata: { name: "orders", namespace: "shop" },
    status: {
      lastSyncedTime: at,
      server: {
        leader: "demo-1",
        messages: 42,
        replicas: [
          { name: "demo-0", current: true, lag: 0 },
          { name: "demo-2", current: false, lag: 17 },
        ],
      },
      conditions: [condition("Ready", "True", "Synced", "in sync"), condition("Synced", "True", "Synced", "in sync")],
    },
  } as ResourceOf<"NatsStream">;

  it("lists the leader first, then the followers with current and lag", () => {
    const report = streamReport(stream);
    expect(report.leader).toBe("demo-1");
    expect(report.replicas).toEqual([
      { name: "demo-1", role: "leader", current: true },
      { name: "demo-0", role: "follower", current: true, lag: 0 },
      { name: "demo-2", role: "follower", current: false, lag: 17 },
    ]);
    const text = formatStatus(report);
    expect(text).toContain("Leader:       demo-1\n");
    expect(text).toContain(
      [
        "REPLICA  ROLE      CURRENT  LAG",
        "demo-1   leader    true",
        "demo-0   follower  true     0",
        "demo-2   follower  false    17",
      ].join("\n"),
    );
    expect(text).toMatch(/^Synced\s+True\s+Synced/m);
  });

  it("a stream not on a server yet has no leader and no replicas", () => {
    const text = formatStatus(streamReport({ metadata: { name: "x", namespace: "y" } } as ResourceOf<"NatsStream">));
    expect(text).toMatch(/^Leader:\s+none reported$/m);
    expect(text).toContain("No replicas reported yet.");
  });
});

describe("status of a NatsAccount", () => {
  it("shows the distribution as n/m and the Distributed condition", () => {
    const account = {
      metadata: { name: "team", namespace: "nats" },
      status: {
        publicKey: "ABCDEF",
        distribution: { servers: 3, current: 2, lastPushTime: at },
        conditions: [condition("Distributed", "False", "DistributionPending", "2 of 3 servers hold the current JWT")],
      },
    } as ResourceOf<"NatsAccount">;
    const report = accountReport(account);
    expect(report.distribution).toEqual({ current: 2, servers: 3, lastPushTime: at });
    const text = formatStatus(report);
    expect(text).toContain("Distribution:  2/3 servers hold the current JWT\n");
    expect(text).toMatch(/^Distributed\s+False\s+DistributionPending/m);
  });
});
