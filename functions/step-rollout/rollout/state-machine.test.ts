import { describe, expect, it } from "@jest/globals";
import { NEW, OLD, catchingUp, input, server, settled } from "../../../test/fixtures/cluster/rollout.ts";
import { decideRollout } from "./state-machine.ts";
import { CLUSTER_REASONS } from "../../../shared/api/index.ts";

const condition = (decision: ReturnType<typeof decideRollout>, type: string) =>
  decision.conditions.find((c) => c.type === type);

describe("rollout plan", () => {
  it("is at rest when every server runs the target revision and the cluster is Settled", () => {
    const decision = decideRollout(input([server(0, NEW), server(1, NEW), server(2, NEW)]));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout).toBeUndefined();
    expect(decision.polling).toBe(false);
    expect(decision.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Ready", "True", "AllServersReady"],
      ["Settled", "True", "AllGroupsCurrent"],
      ["Progressing", "False", "UpToDate"],
    ]);
    expect(condition(decision, "Settled")?.message).toBe("every Raft group has a leader and every member is current");
  });

  it("restarts the highest ordinal first when the gate is open", () => {
    const decision = decideRollout(
      input([server(0), server(1), server(2)], { snapshot: settled(undefined, "demo-0") }),
    );
    expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
    expect(decision.rollout).toEqual({
      targetRevision: NEW,
      current: "demo-2",
      pending: ["demo-1", "demo-0"],
      gate: { waitingFor: "Settled", since: "2026-12-02T10:00:00.000Z" },
    });
    expect(decision.stepEvent).toBe("restarting demo-2");
    expect(decision.polling).toBe(true);
  });

  it("restarts the meta leader's server last", () => {
    const decision = decideRollout(
      input([server(0), server(1), server(2)], { snapshot: settled(undefined, "demo-2") }),
    );
    expect(decision.step).toMatchObject({ server: "demo-1" });
    expect(decision.rollout?.pending).toEqual(["demo-0", "demo-2"]);
  });

  it("waits for Settled while the restarted server catches up, and says so", () => {
    const previous = {
      targetRevision: NEW,
      updated: ["demo-2"],
      current: "demo-1",
      pending: ["demo-0"],
      gate: { waitingFor: "Settled", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(
      input([server(0), server(1, NEW, { podReady: false }), server(2, NEW)], {
        snapshot: catchingUp("demo-1"),
        previous,
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout).toEqual(previous);
    expect(decision.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["Ready", "True", "QuorumAvailable", "2 of 3 servers ready"],
      ["Settled", "False", "GroupsCatchingUp", "4 Raft groups have a member on demo-1 that is not current"],
      ["Progressing", "True", "RollingRestart", "restarting demo-1 (2 of 3); waiting for Settled"],
    ]);
  });

  it("waits until the restarted server reports the target revision", () => {
    const previous = {
      targetRevision: NEW,
      current: "demo-2",
      pending: ["demo-1", "demo-0"],
      gate: { waitingFor: "Settled", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(
      input([server(0), server(1), server(2, NEW, { reportedRevision: OLD })], { previous }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout?.gate).toEqual({ waitingFor: "TargetRevision", since: "2026-12-02T09:59:00.000Z" });
  });

  it("waits for a pod that is not Ready", () => {
    const decision = decideRollout(input([server(0), server(1, OLD, { podReady: false }), server(2)]));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout?.gate?.waitingFor).toBe("Ready");
    expect(condition(decision, "Progressing")?.message).toBe("before restarting demo-2 (1 of 3); waiting for Ready");
  });

  it("waits for a server that answers outside the meta group", () => {
    const snapshot = { ...settled(), metaMembers: ["demo-0", "demo-1"] };
    const decision = decideRollout(input([server(0), server(1), server(2)], { snapshot }));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout?.gate?.waitingFor).toBe("Settled");
  });

  it("restarts a lone standalone JetStream server, which has no meta group to join", () => {
    const lone = settled(["demo-0"]);
    const snapshot = { ...lone, metaMembers: [], groups: lone.groups.filter((g) => g.label !== "meta") };
    const decision = decideRollout(input([server(0)], { replicas: 1, snapshot }));
    expect(decision.step).toEqual({ kind: "restart", server: "demo-0", forced: false });
  });

  it("never proceeds on an unobserved cluster", () => {
    const { snapshot: _none, ...rest } = input([server(0), server(1), server(2)]);
    const decision = decideRollout(rest);
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Settled")).toMatchObject({ status: "Unknown", reason: "ObservationFailed" });
  });

  it("moves on to the next server once the gate opens after a step", () => {
    const previous = {
      targetRevision: NEW,
      current: "demo-2",
      pending: ["demo-1", "demo-0"],
      gate: { waitingFor: "Settled", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(
      input([server(0), server(1), server(2, NEW)], { previous, snapshot: settled(undefined, "demo-0") }),
    );
    expect(decision.step).toEqual({ kind: "restart", server: "demo-1", forced: false });
    expect(decision.rollout).toMatchObject({ updated: ["demo-2"], current: "demo-1", pending: ["demo-0"] });
  });

  it("ends with Progressing False once the last server settles", () => {
    const previous = {
      targetRevision: NEW,
      updated: ["demo-2", "demo-1"],
      current: "demo-0",
      gate: { waitingFor: "Settled", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(input([server(0, NEW), server(1, NEW), server(2, NEW)], { previous }));
    expect(decision.rollout).toBeUndefined();
    expect(condition(decision, "Progressing")).toMatchObject({ status: "False", reason: "UpToDate" });
  });

  it("holds before the next step while paused", () => {
    const decision = decideRollout(input([server(0), server(1), server(2)], { paused: true }));
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: "RolloutPaused",
      message: "paused before restarting demo-2",
    });
  });

  it("restarts a force-stepped server through a closed gate and through paused, and clears the annotation", () => {
    const decision = decideRollout(
      input([server(0), server(1, OLD, { podReady: false }), server(2)], { paused: true, forceStep: "demo-0" }),
    );
    expect(decision.step).toEqual({ kind: "restart", server: "demo-0", forced: true });
    expect(decision.clearForceStep).toBe(true);
  });

  it("clears a force-step naming a server with nothing to do without acting", () => {
    const decision = decideRollout(input([server(0, NEW), server(1, NEW), server(2, NEW)], { forceStep: "demo-7" }));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.clearForceStep).toBe(true);
  });

  it("relabels a gate closed for ten minutes GateBlocked, records the event once, and still does not proceed", () => {
    const previous = {
      targetRevision: NEW,
      current: "demo-2",
      pending: ["demo-1", "demo-0"],
      gate: { waitingFor: "Settled", since: "2026-12-02T09:49:00.000Z" },
    };
    const snapshot = catchingUp("demo-2", 1);
    const first = decideRollout(input([server(0), server(1), server(2, NEW)], { previous, snapshot }));
    expect(first.step).toEqual({ kind: "none" });
    expect(condition(first, "Progressing")).toMatchObject({ status: "False", reason: "GateBlocked" });
    expect(first.gateBlockedEvent).toContain("stream S0 behind (demo-2)");
    const again = decideRollout(
      input([server(0), server(1), server(2, NEW)], { previous, snapshot, previousProgressingReason: "GateBlocked" }),
    );
    expect(again.gateBlockedEvent).toBeUndefined();
  });

  it("removes surplus servers first, highest ordinal first, without JetStream", () => {
    const servers = [
      server(0, NEW),
      server(1, NEW),
      server(2, NEW),
      server(3, NEW, { planned: false }),
      server(4, NEW, { planned: false }),
    ];
    const names = servers.map((s) => s.name);
    const decision = decideRollout(
      input(servers, { jetstream: false, snapshot: { roster: names, silent: [], metaMembers: [], groups: [] } }),
    );
    expect(decision.step).toEqual({ kind: "delete", server: "demo-4", surplus: true });
    expect(decision.rollout?.pending).toEqual(["demo-3"]);
  });

  it("blocks scale-down of JetStream servers without system credentials", () => {
    const names = ["demo-0", "demo-1", "demo-2", "demo-3"];
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW), server(3, NEW, { planned: false })], {
        snapshot: settled(names),
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")).toMatchObject({ status: "False", reason: "ScaleDownBlocked" });
  });

  it("blocks replacing a JetStream server without system credentials", () => {
    const decision = decideRollout(input([server(0, NEW), server(1, NEW, { replace: true }), server(2, NEW)]));
    expect(condition(decision, "Progressing")).toMatchObject({ status: "False", reason: "ReplacementBlocked" });
  });

  it("reports Creating while new servers come up", () => {
    const decision = decideRollout(
      input([server(0, NEW, { podReady: false, reportedRevision: undefined }), server(1, NEW), server(2, NEW)]),
    );
    expect(condition(decision, "Progressing")).toMatchObject({ status: "True", reason: "Creating" });
    expect(decision.polling).toBe(true);
  });

  it("reports objects it does not control as Ready False ReconcileFailed", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], { foreign: ["Service demo"] }),
    );
    expect(condition(decision, "Ready")).toMatchObject({
      status: "False",
      reason: "ReconcileFailed",
      message: "not controlled by this NatsCluster: Service demo",
    });
  });

  it("reports a failed render as Progressing False ReconcileFailed with its message", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], {
        renderFailure: { message: "Service demo: admission webhook denied", reason: "ReconcileFailed" },
      }),
    );
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: "ReconcileFailed",
      message: "Service demo: admission webhook denied",
    });
  });

  it("keeps rolling out while a render has failed", () => {
    const decision = decideRollout(
      input([server(0), server(1), server(2)], {
        snapshot: settled(undefined, "demo-0"),
        renderFailure: { message: "boom", reason: "ReconcileFailed" },
      }),
    );
    expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
    expect(condition(decision, "Progressing")).toMatchObject({ reason: "ReconcileFailed" });
  });

  it("holds the GateBlocked event back while a failed render is what Progressing says", () => {
    const previous = {
      targetRevision: NEW,
      current: "demo-2",
      pending: ["demo-1", "demo-0"],
      gate: { waitingFor: "Settled", since: "2026-12-02T09:49:00.000Z" },
    };
    const decision = decideRollout(
      input([server(0), server(1), server(2, NEW)], {
        previous,
        snapshot: catchingUp("demo-2", 1),
        renderFailure: { message: "boom", reason: "ReconcileFailed" },
      }),
    );
    expect(decision.gateBlockedEvent).toBeUndefined();
  });

  it("names a recorded render failure by the reason recorded beside it", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], {
        renderFailure: { message: "no grant", reason: "NoGrant" },
      }),
    );
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: "NoGrant",
      message: "no grant",
    });
  });

  it("reads a refused trust as Progressing False with its reason, before a recorded render failure", () => {
    const hold = {
      reason: CLUSTER_REASONS.TrustNotFound,
      message: "NatsOperatorTrust a/t does not exist",
      refused: true,
    };
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], {
        hold,
        renderFailure: { message: "older failure", reason: "ReconcileFailed" },
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: "TrustNotFound",
      message: hold.message,
    });
  });

  it("reports quorum unavailable when a majority is down", () => {
    const decision = decideRollout(
      input([server(0, NEW, { podReady: false }), server(1, NEW, { podReady: false }), server(2, NEW)]),
    );
    expect(condition(decision, "Ready")).toMatchObject({ status: "False", reason: "QuorumUnavailable" });
  });

  it("replaces a server replace-server marked by deleting it when it holds no JetStream data, and lists it in removals", () => {
    const names = ["demo-0", "demo-1", "demo-2"];
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW, { replace: true }), server(2, NEW)], {
        jetstream: false,
        snapshot: { roster: names, silent: [], metaMembers: [], groups: [] },
      }),
    );
    expect(decision.step).toEqual({ kind: "delete", server: "demo-1", surplus: false });
    expect(decision.removals).toEqual([{ name: "demo-1", phase: "Deleting", since: "2026-12-02T10:00:00.000Z" }]);
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "True",
      reason: "ReplacingServer",
      message: "replacing demo-1 (3 of 3); waiting for Settled",
    });
  });

  it("keeps the gate closed until a replaced server exists again", () => {
    const names = ["demo-0", "demo-2"];
    const previous = {
      targetRevision: NEW,
      updated: ["demo-0", "demo-2"],
      current: "demo-1",
      gate: { waitingFor: "Settled", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(
      input(
        [
          server(0, NEW),
          server(1, NEW, { exists: false, podReady: false, reportedRevision: undefined }),
          server(2, NEW),
        ],
        {
          jetstream: false,
          previous,
          snapshot: { roster: names, silent: [], metaMembers: [], groups: [] },
        },
      ),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout).toMatchObject({ current: "demo-1", gate: { waitingFor: "Ready" } });
  });

  it("shows a replacement waiting its turn as Requested", () => {
    const decision = decideRollout(input([server(0, NEW), server(1, NEW, { replace: true }), server(2, NEW)]));
    expect(decision.removals).toEqual([{ name: "demo-1", phase: "Requested", since: "2026-12-02T10:00:00.000Z" }]);
  });

  it("takes no step while a mounted certificate is missing, and says so", () => {
    const decision = decideRollout(
      input([server(0), server(1), server(2)], {
        hold: { reason: "RouteCertificateNotReady", message: "waiting" },
        forceStep: "demo-0",
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")).toMatchObject({ status: "True", reason: "RouteCertificateNotReady" });
  });
});

describe("rollout plan with system credentials", () => {
  const FIVE = ["demo-0", "demo-1", "demo-2", "demo-3", "demo-4"];
  const fiveServers = () => [
    server(0, NEW),
    server(1, NEW),
    server(2, NEW),
    server(3, NEW, { planned: false }),
    server(4, NEW, { planned: false }),
  ];

  it("starts a scale-down by evacuating the highest surplus server", () => {
    const three = settled(FIVE, "demo-0");
    const snapshot = {
      ...three,
      groups: three.groups.map((g) => (g.label === "meta" ? g : { ...g, members: g.members.slice(0, 3) })),
    };
    const decision = decideRollout(input(fiveServers(), { canEvacuate: true, snapshot }));
    expect(decision.step).toEqual({ kind: "evacuate", server: "demo-4" });
    expect(decision.removals).toEqual([{ name: "demo-4", phase: "Evacuating", since: "2026-12-02T10:00:00.000Z" }]);
    expect(decision.stepEvent).toBe("evacuating demo-4");
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "True",
      reason: "ScalingDown",
      message: "removing demo-4 (4 of 5); waiting for Settled",
    });
  });

  it("refuses to shrink below a stream's replica count", () => {
    const snapshot = settled(FIVE, "demo-0");
    const decision = decideRollout(input(fiveServers(), { canEvacuate: true, replicas: 2, snapshot }));
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: "ScaleDownBlocked",
      message: "stream ORDERS has 5 replicas, more than the 2 servers that would remain",
    });
  });

  it("carries a removal under way through its phases even while the rest of the cluster catches up", () => {
    const previousRemovals = [{ name: "demo-4", phase: "Evacuating" as const, since: "2026-12-02T09:59:00.000Z" }];
    const previous = {
      targetRevision: NEW,
      current: "demo-4",
      pending: ["demo-3"],
      gate: { waitingFor: "Evacuated", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(
      input(fiveServers(), {
        canEvacuate: true,
        previous,
        previousRemovals,
        snapshot: catchingUp("demo-2", 1, FIVE, "demo-0"),
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout).toEqual({ ...previous, updated: ["demo-0", "demo-1", "demo-2"] });
    expect(decision.removals).toEqual(previousRemovals);
  });

  it("removes an evacuated server from the meta group, and says so once", () => {
    const previousRemovals = [{ name: "demo-4", phase: "Evacuating" as const, since: "2026-12-02T09:59:00.000Z" }];
    const snapshot = {
      ...settled(FIVE, "demo-0"),
      groups: [settled(FIVE, "demo-0").groups[0] ?? { label: "meta", selfReported: true, members: [] }],
    };
    const decision = decideRollout(input(fiveServers(), { canEvacuate: true, previousRemovals, snapshot }));
    expect(decision.step).toEqual({ kind: "remove-peer", server: "demo-4" });
    expect(decision.removals).toEqual([{ name: "demo-4", phase: "Removed", since: "2026-12-02T10:00:00.000Z" }]);
    expect(decision.stepEvent).toBe("removing demo-4 from the meta group");
  });

  it("shows a replaced server as Deleting until it exists again, then Rejoining until the gate opens", () => {
    const previousRemovals = [{ name: "demo-1", phase: "Deleting" as const, since: "2026-12-02T09:59:00.000Z" }];
    const previous = {
      targetRevision: NEW,
      updated: ["demo-2", "demo-0"],
      current: "demo-1",
      gate: { waitingFor: "Settled", since: "2026-12-02T09:59:00.000Z" },
    };
    const gone = decideRollout(
      input(
        [
          server(0, NEW),
          server(1, NEW, { exists: false, podReady: false, reportedRevision: undefined }),
          server(2, NEW),
        ],
        {
          canEvacuate: true,
          previous,
          previousRemovals,
          snapshot: settled(["demo-0", "demo-2"], "demo-0"),
        },
      ),
    );
    expect(gone.removals).toEqual(previousRemovals);
    const back = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        snapshot: settled(["demo-0", "demo-1", "demo-2"], "demo-0"),
      }),
    );
    expect(back.removals).toEqual([]);
    const outside = { ...settled(["demo-0", "demo-1", "demo-2"], "demo-0"), metaMembers: ["demo-0", "demo-2"] };
    const rejoining = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        snapshot: outside,
      }),
    );
    expect(rejoining.removals).toEqual([{ name: "demo-1", phase: "Rejoining", since: "2026-12-02T10:00:00.000Z" }]);
    expect(rejoining.rollout?.gate?.waitingFor).toBe("Settled");
  });
});

describe("rollout plan after a replaced server was deleted", () => {
  it("still says it is replacing the server while it waits to come back", () => {
    const previousRemovals = [{ name: "demo-1", phase: "Deleting" as const, since: "2026-12-02T09:59:00.000Z" }];
    const previous = {
      targetRevision: NEW,
      updated: ["demo-2", "demo-0"],
      current: "demo-1",
      gate: { waitingFor: "Ready", since: "2026-12-02T09:59:00.000Z" },
    };
    const decision = decideRollout(
      input(
        [
          server(0, NEW),
          server(1, NEW, { exists: false, podReady: false, reportedRevision: undefined }),
          server(2, NEW),
        ],
        {
          canEvacuate: true,
          previous,
          previousRemovals,
          snapshot: settled(["demo-0", "demo-2"], "demo-0"),
        },
      ),
    );
    expect(condition(decision, "Progressing")).toMatchObject({
      reason: "ReplacingServer",
      message: "replacing demo-1 (3 of 3); waiting for Ready",
    });
  });
});

describe("rollout plan when auth is added or removed", () => {
  const adding = () => [
    server(0, OLD, { authChange: "added" as const }),
    server(1, OLD, { authChange: "added" as const }),
    server(2, OLD, { authChange: "added" as const }),
  ];

  it("holds every server on its running config and says how to proceed", () => {
    const decision = decideRollout(input(adding(), { snapshot: settled(undefined, "demo-0"), forceStep: "demo-1" }));
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.rollout?.pending).toEqual(["demo-2", "demo-1", "demo-0"]);
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: "AuthChangeBlocked",
      message:
        "auth added to running servers needs every server restarted at once: annotate the NatsCluster with cluster.nats-operator.io/restart-all, or recreate it",
    });
    expect(decision.polling).toBe(false);
  });

  it("restarts every server at once under restart-all, and clears the annotation", () => {
    const decision = decideRollout(input(adding(), { restartAll: true, snapshot: catchingUp("demo-2") }));
    expect(decision.step).toEqual({ kind: "restart-all", servers: ["demo-0", "demo-1", "demo-2"], change: "added" });
    expect(decision.clearRestartAll).toBe(true);
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "True",
      reason: "RollingRestart",
      message: "restarting demo-0, demo-1, demo-2 at once: auth added",
    });
  });

  it("holds restart-all on ephemeral JetStream storage, says what would be lost and how to proceed", () => {
    const decision = decideRollout(
      input(adding(), { restartAll: true, ephemeralJetStream: true, snapshot: settled(undefined, "demo-0") }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.clearRestartAll).toBe(false);
    expect(decision.rollout?.pending).toEqual(["demo-2", "demo-1", "demo-0"]);
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "False",
      reason: CLUSTER_REASONS.EphemeralRestartAllBlocked,
      message:
        "restart-all would restart every server at once on ephemeral JetStream storage (jetstream.storage: Ephemeral): every server's JetStream data, every stream and consumer, would be lost at once. To keep it, move the streams to another cluster first; to accept the loss, set cluster.nats-operator.io/restart-all to discard-jetstream-data",
    });
    expect(decision.polling).toBe(false);
  });

  it("holds a forced step too while restart-all waits on ephemeral storage", () => {
    const decision = decideRollout(
      input(adding(), {
        restartAll: true,
        ephemeralJetStream: true,
        forceStep: "demo-1",
        snapshot: settled(undefined, "demo-0"),
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")?.reason).toBe("EphemeralRestartAllBlocked");
  });

  it("restarts every server at once on ephemeral storage when restart-all accepts the loss", () => {
    const decision = decideRollout(
      input(adding(), {
        restartAll: true,
        ephemeralJetStream: true,
        restartAllDiscardsData: true,
        snapshot: settled(undefined, "demo-0"),
      }),
    );
    expect(decision.step).toEqual({ kind: "restart-all", servers: ["demo-0", "demo-1", "demo-2"], change: "added" });
    expect(decision.clearRestartAll).toBe(true);
  });

  it("does not hold restart-all on ephemeral storage without JetStream", () => {
    const decision = decideRollout(
      input(adding(), {
        jetstream: false,
        restartAll: true,
        ephemeralJetStream: true,
        snapshot: settled(undefined, "demo-0"),
      }),
    );
    expect(decision.step).toMatchObject({ kind: "restart-all" });
  });

  it("says nothing of ephemeral storage while restart-all is not set", () => {
    const decision = decideRollout(
      input(adding(), { ephemeralJetStream: true, snapshot: settled(undefined, "demo-0") }),
    );
    expect(condition(decision, "Progressing")?.reason).toBe("AuthChangeBlocked");
  });

  it("leaves restart-all in place while no auth change waits for it", () => {
    const decision = decideRollout(
      input([server(0), server(1), server(2)], { restartAll: true, snapshot: settled(undefined, "demo-0") }),
    );
    expect(decision.step).toEqual({ kind: "restart", server: "demo-2", forced: false });
    expect(decision.clearRestartAll).toBe(false);
  });
});

describe("rollout plan carrying on a claimed Deleting phase (a delivery lost half-way)", () => {
  const since = "2026-12-02T09:59:00.000Z";
  const previousRemovals = [{ name: "demo-1", phase: "Deleting" as const, since }];
  const previous = {
    targetRevision: NEW,
    updated: ["demo-2", "demo-0"],
    current: "demo-1",
    gate: { waitingFor: "Settled", since },
  };
  // Out of the meta group already (peer-removed), so the gate stays closed on it.
  const peerRemoved = { ...settled(["demo-0", "demo-1", "demo-2"], "demo-0"), metaMembers: ["demo-0", "demo-2"] };
  const gone = server(1, NEW, { exists: false, podReady: false, reportedRevision: undefined });

  it("deletes the StatefulSet again when the delivery that claimed the phase died before deleting it", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW, { replace: true }), server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        snapshot: peerRemoved,
      }),
    );
    expect(decision.step).toEqual({ kind: "delete", server: "demo-1", surplus: false });
    expect(decision.removals).toEqual(previousRemovals);
    expect(decision.stepEvent).toBeUndefined();
    expect(decision.polling).toBe(true);
  });

  it("deletes a surplus server's StatefulSet again (and says it is surplus, so its ConfigMap goes too)", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW, { planned: false })], {
        replicas: 1,
        canEvacuate: true,
        previous,
        previousRemovals,
        snapshot: { ...settled(["demo-0", "demo-1"], "demo-0"), metaMembers: ["demo-0"] },
      }),
    );
    expect(decision.step).toEqual({ kind: "delete", server: "demo-1", surplus: true });
  });

  it("deletes the claim left behind when the delivery died between the StatefulSet's delete and the claim's", () => {
    const decision = decideRollout(
      input([server(0, NEW), gone, server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        claimsLeft: [{ server: "demo-1", uid: "uid-old-claim" }],
        snapshot: settled(["demo-0", "demo-2"], "demo-0"),
      }),
    );
    expect(decision.step).toEqual({ kind: "delete-claim", server: "demo-1", uid: "uid-old-claim", surplus: false });
    expect(decision.removals).toEqual(previousRemovals);
    expect(decision.stepEvent).toBe("deleting the claim demo-1 left behind");
  });

  it("has nothing left to delete once the StatefulSet and the claim are gone", () => {
    const decision = decideRollout(
      input([server(0, NEW), gone, server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        claimsLeft: [],
        snapshot: settled(["demo-0", "demo-2"], "demo-0"),
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.removals).toEqual(previousRemovals);
  });

  it("reads ClaimTerminating, naming the claim, while the replaced server's old claim is being deleted", () => {
    const decision = decideRollout(
      input([server(0, NEW), gone, server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        claimsTerminating: [{ server: "demo-1", claim: "data-demo-1" }],
        snapshot: settled(["demo-0", "demo-2"], "demo-0"),
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(condition(decision, "Progressing")).toMatchObject({
      status: "True",
      reason: "ClaimTerminating",
      message: "replacing demo-1 (3 of 3); waiting for its old claim data-demo-1 to be deleted",
    });
  });

  it("leaves the replacement alone: a StatefulSet back under the name is not the one deleted", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW), server(2, NEW)], {
        canEvacuate: true,
        previous,
        previousRemovals,
        snapshot: peerRemoved,
      }),
    );
    expect(decision.step).toEqual({ kind: "none" });
    expect(decision.removals).toEqual([{ name: "demo-1", phase: "Rejoining", since: "2026-12-02T10:00:00.000Z" }]);
  });

  it("carries the deletion on without JetStream too", () => {
    const decision = decideRollout(
      input([server(0, NEW), server(1, NEW, { replace: true }), server(2, NEW)], {
        jetstream: false,
        previous,
        previousRemovals,
        snapshot: { roster: ["demo-0", "demo-1", "demo-2"], silent: ["demo-1"], metaMembers: [], groups: [] },
      }),
    );
    expect(decision.step).toEqual({ kind: "delete", server: "demo-1", surplus: false });
  });
});
