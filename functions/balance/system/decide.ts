// The decision of one balancer pass, from what observe.ts read and the time: pure, so the same
// observation always gives the same decision. A pass makes at most one move (a placement move
// before a leader move), and none while the cluster is unsettled or its NatsCluster mid-rollout, a
// move is pending, another balancer covers the cluster or holds its move lease, or `interval` has
// not passed since the last move.
import { type ConditionUpdate, setConditions } from "../../../shared/kube/index.ts";
import type { Poll } from "../../../shared/runtime/index.ts";
import {
  type Capabilities,
  describeBalancer,
  intervalMs,
  leaderMovesOn,
  type Move,
  type NatsSystemBalancerStatus,
  placementMovesAsked,
} from "./resource.ts";
import { capabilitiesOf } from "./capabilities.ts";
import { coveringBalancer } from "./duplicate.ts";
import type { Decision } from "./types.ts";
import { withLease } from "./lease.ts";
import { loadOf, type Load } from "../leaders/load.ts";
import type { Observed } from "./observe.ts";
import { planLeaderMove, type LeaderMove } from "../leaders/plan-leader-move.ts";
import { type PlacementMemory, planPlacementMove, recallPlacement, rememberMove } from "./plan-placement.ts";
import { PENDING_POLL, pollFor } from "../pass/schedule.ts";
import { rolloutHold } from "../pass/rollout.ts";
import { unsettledBecause } from "../leaders/settled.ts";
import { describeGroup, type Group, type Snapshot } from "../leaders/snapshot.ts";
import type { BalancerEvent, MoveRequest } from "../pass/types.ts";
import { readyWarning } from "../pass/ready-warning.ts";
import type { Reason } from "../../../shared/api/index.ts";

const ready = (status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type: "Ready",
  status,
  reason,
  message,
});
const holding = (status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type: "Holding",
  status,
  reason,
  message,
});

/** `leader of stream S …`, `leader of consumer S/C …` or `copy of stream S …` of a move. */
const describeMove = (move: Move) =>
  move.kind === "Placement"
    ? `copy of stream ${move.stream ?? ""} in account ${move.account ?? ""}`
    : `leader of ${describeGroup({ kind: move.consumer ? "consumer" : "stream", stream: move.stream ?? "", ...(move.consumer ? { consumer: move.consumer } : {}) })} in account ${move.account ?? ""}`;

/** MoveDone for each pending move, saying where the leader went. */
function doneEvents(pending: readonly Move[], snapshot: Snapshot): BalancerEvent[] {
  return pending.map((move) => {
    const group = snapshot.groups.find(
      (g) => g.account === move.account && g.stream === move.stream && (g.consumer ?? "") === (move.consumer ?? ""),
    );
    const now = group?.leader;
    const where = !group
      ? "its group is gone"
      : move.kind === "Placement"
        ? `off ${move.from ?? ""}, copies now on ${group.members.map((m) => m.name).join(", ")}`
        : now === move.to
          ? `now on ${now}`
          : `on ${now ?? "no server"} (asked for ${move.to ?? ""})`;
    return { type: "Normal", reason: "MoveDone", note: `${describeMove(move)}: ${where}` };
  });
}

function moveOf(planned: LeaderMove, now: Date): Move {
  return {
    kind: "Leader",
    account: planned.group.account,
    stream: planned.group.stream,
    consumer: planned.group.consumer ?? "",
    from: planned.from,
    to: planned.to,
    time: now.toISOString(),
  };
}

function balancingMessage(observed: Observed, snapshot: Snapshot): string {
  const streams = snapshot.groups.filter((g) => g.kind === "stream").length;
  const consumers = snapshot.groups.length - streams;
  const evacuating = observed.nats.kind === "read" ? (observed.nats.evacuating ?? []).length : 0;
  const leftAlone =
    evacuating > 0 ? `; ${evacuating} stream${evacuating === 1 ? "" : "s"} under evacuation left alone` : "";
  return `balancing ${streams} stream and ${consumers} consumer leaders on ${snapshot.roster.length} servers of NATS cluster ${snapshot.cluster}${leftAlone}`;
}

const skewText = (load: Load) => `leader skew ${load.skew.leaders} across ${load.servers.length} servers`;

/** What one pass does for the balancer observed, at `now`, the move lease included. */
export function decide(observed: Observed, now: Date): Decision {
  return withLease(observed, decidePass(observed, now), now);
}

function decidePass(observed: Observed, now: Date): Decision {
  const { balancer, nats } = observed;
  const previous: NatsSystemBalancerStatus = balancer.status ?? {};
  const generation = balancer.metadata.generation;
  const base = generation !== undefined ? { observedGeneration: generation } : {};
  const interval = intervalMs(balancer);
  const steady = pollFor(interval ?? 60_000);

  const failed = (reason: Reason, message: string): Decision => {
    const update = ready("False", reason, message);
    const conditions = setConditions(
      previous.conditions,
      [update, holding("True", "NotObserved", `no move is made: ${message}`)],
      now,
    );
    return {
      status: { ...previous, ...base, conditions },
      events: readyWarning(previous.conditions, update),
      poll: steady,
      summary: `${reason}: ${message}`,
    };
  };
  if (interval === undefined)
    return failed("InvalidInterval", `interval ${balancer.spec.interval ?? ""} is not a positive duration`);
  if (nats.kind === "unavailable") return failed(nats.reason, nats.message);

  const { snapshot } = nats;
  const load = loadOf(snapshot);
  const observedLoad = { servers: load.servers, skew: load.skew };
  const pending = previous.pending ?? [];
  const lastMove = previous.lastMove;
  // Kept only while placement moves are asked: turned off, they forget.
  const placementStatus = (current?: PlacementMemory) => {
    const placement = placementMovesAsked(balancer) ? (current ?? previous.placement) : undefined;
    return placement ? { placement } : {};
  };
  const settle = (
    conditionUpdates: ConditionUpdate[],
    rest: {
      capabilities?: Capabilities;
      pending: Move[];
      lastMove?: Move;
      events?: BalancerEvent[];
      move?: MoveRequest;
      poll?: Poll;
      summary: string;
      /** What placement moves remember now; the previous memory when omitted. */
      placement?: PlacementMemory;
    },
  ): Decision => ({
    status: {
      ...base,
      conditions: setConditions(previous.conditions, conditionUpdates, now),
      ...(rest.capabilities ? { capabilities: rest.capabilities } : {}),
      ...observedLoad,
      ...(rest.lastMove ? { lastMove: rest.lastMove } : {}),
      pending: rest.pending,
      ...placementStatus(rest.placement),
    },
    ...(rest.move ? { move: rest.move } : {}),
    events: [...readyWarning(previous.conditions, conditionUpdates[0] as ConditionUpdate), ...(rest.events ?? [])],
    poll: rest.poll ?? steady,
    summary: rest.summary,
  });

  const covering = coveringBalancer(balancer, observed.others, snapshot.roster);
  if (covering) {
    const holder = describeBalancer(covering);
    return settle(
      [
        ready("False", "DuplicateBalancer", `${holder} already balances NATS cluster ${snapshot.cluster}`),
        holding("True", "MoveLeaseHeld", `${holder} holds the move lease of NATS cluster ${snapshot.cluster}`),
      ],
      { pending: [], ...(lastMove ? { lastMove } : {}), summary: `duplicate of ${holder}` },
    );
  }

  const capabilities = {
    ...capabilitiesOf(
      [...new Set(snapshot.groups.map((g) => g.account))],
      leaderMovesOn(balancer) ? nats.reach : undefined,
    ),
    placement: placementMovesAsked(balancer),
  };
  const balancing = ready("True", "Balancing", balancingMessage(observed, snapshot));
  const common = { capabilities, ...(lastMove ? { lastMove } : {}) };
  const unsettled = unsettledBecause(snapshot) ?? rolloutHold(observed.clusters ?? [], snapshot.roster);

  // A placement move is done once its `from` no longer holds the stream.
  const leaving = pending.filter(
    (m) =>
      m.kind === "Placement" &&
      snapshot.groups.some(
        (g) =>
          g.kind === "stream" &&
          g.account === m.account &&
          g.stream === m.stream &&
          g.members.some((x) => x.name === m.from),
      ),
  );
  if (leaving.length > 0) {
    const message = `waiting for the ${leaving.map(describeMove).join(", ")} to leave ${leaving.map((m) => m.from ?? "").join(", ")}`;
    return settle([balancing, holding("True", "MovePending", message)], {
      ...common,
      pending,
      poll: PENDING_POLL,
      summary: message,
    });
  }
  if (pending.length > 0 && unsettled) {
    const message = `waiting for the ${pending.map(describeMove).join(", ")} to settle: ${unsettled}`;
    return settle([balancing, holding("True", "MovePending", message)], {
      ...common,
      pending,
      poll: PENDING_POLL,
      summary: message,
    });
  }
  // A leader move is done once a later pass finds the cluster settled.
  const events = pending.length > 0 ? doneEvents(pending, snapshot) : [];
  if (unsettled)
    return settle([balancing, holding("True", "Unsettled", unsettled)], {
      ...common,
      pending: [],
      events,
      summary: unsettled,
    });
  const evacuating = new Set((nats.evacuating ?? []).map((s) => `${s.account}\u0000${s.stream}`));
  const inScope = (g: Group) =>
    (!g.placementCluster || g.placementCluster === snapshot.cluster) &&
    !evacuating.has(`${g.account}\u0000${g.stream}`);
  const due = lastMove?.time ? Date.parse(lastMove.time) + interval : 0;

  // Placement moves go before leader moves: a copy that moves takes its leadership along.
  // The memory is refreshed only here, settled with no move pending, so it never measures a copy mid-move.
  const memory = placementMovesAsked(balancer)
    ? recallPlacement(previous.placement, snapshot.groups, snapshot.roster, inScope)
    : undefined;
  const copy = memory
    ? planPlacementMove(snapshot.groups, snapshot.roster, snapshot.tags ?? new Map(), inScope, memory.tried)
    : undefined;
  const remembered = memory ? { placement: memory } : {};
  if (copy) {
    const move: Move = {
      kind: "Placement",
      account: copy.group.account,
      stream: copy.group.stream,
      consumer: "",
      from: copy.from,
      to: "",
      time: now.toISOString(),
    };
    const note = `${describeMove(move)} off ${copy.from}`;
    if (now.getTime() < due) {
      const message = `settled; next move (${note}) not before ${new Date(due).toISOString()}`;
      return settle([balancing, holding("False", "Settled", message)], {
        ...common,
        ...remembered,
        pending: [],
        events,
        summary: message,
      });
    }
    return settle([balancing, holding("False", "Settled", `settled; moving the ${note}`)], {
      capabilities,
      lastMove: move,
      pending: [move],
      ...(memory ? { placement: rememberMove(memory, copy) } : {}),
      events: [...events, { type: "Normal", reason: "MoveStarted", note: `moving the ${note}` }],
      move: {
        target: { account: copy.group.account, stream: copy.group.stream },
        from: copy.from,
        to: "",
        placement: { cluster: snapshot.cluster },
      },
      poll: PENDING_POLL,
      summary: `moving the ${note}`,
    });
  }

  if (!leaderMovesOn(balancer)) {
    const message = `leader moves are off; ${skewText(load)}`;
    return settle([balancing, holding("False", "Settled", message)], {
      ...common,
      ...remembered,
      pending: [],
      events,
      summary: message,
    });
  }

  const movable = (g: Group) => nats.reach?.get(g.account) === true && inScope(g);
  const planned = planLeaderMove(snapshot.groups, snapshot.roster, movable);
  if (!planned) {
    const stuck = load.skew.leaders > 1 && capabilities.leaderReason ? `; ${capabilities.leaderReason}` : "";
    const message = `settled, nothing to move: ${skewText(load)}${stuck}`;
    return settle([balancing, holding("False", "Settled", message)], {
      ...common,
      ...remembered,
      pending: [],
      events,
      summary: message,
    });
  }
  const move = moveOf(planned, now);
  if (now.getTime() < due) {
    const message = `settled; next move (${describeMove(move)} from ${planned.from} to ${planned.to}) not before ${new Date(due).toISOString()}`;
    return settle([balancing, holding("False", "Settled", message)], {
      ...common,
      ...remembered,
      pending: [],
      events,
      summary: message,
    });
  }
  const note = `${describeMove(move)} from ${planned.from} to ${planned.to}`;
  return settle([balancing, holding("False", "Settled", `settled; moving the ${note}`)], {
    capabilities,
    lastMove: move,
    pending: [move],
    ...remembered,
    events: [...events, { type: "Normal", reason: "MoveStarted", note: `moving the ${note}` }],
    move: {
      target: {
        account: planned.group.account,
        stream: planned.group.stream,
        ...(planned.group.consumer ? { consumer: planned.group.consumer } : {}),
      },
      from: planned.from,
      to: planned.to,
      ...(nats.ownAccount ? { ownAccount: nats.ownAccount } : {}),
    },
    poll: PENDING_POLL,
    summary: `moving the ${note}`,
  });
}
