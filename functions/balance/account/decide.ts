// The decision of one account-balancer pass (B5–B12), from what account-observe.ts read and the
// time: pure. The account's streams are split into pools; the first pool with a worthwhile leader
// move gets it, one move per pass, none while pools overlap, another balancer holds the NATS
// cluster's move lease, a system balancer has a move pending on the account's streams, the groups
// are unsettled or their NatsCluster mid-rollout, or `interval` has not passed since the last move.
// The lease stands for the pending move: the balancer holds it from its move until a pass of its
// own finds the account settled again.
import { type ConditionUpdate, findCondition, setConditions } from "../../../shared/kube/index.ts";
import type { Poll } from "../../../shared/runtime/index.ts";
import { describeAccountBalancer, type NatsBalancerStatus, type PoolStatus } from "./resource.ts";
import type { AccountObserved } from "./observe.ts";
import { describeBalancer, intervalMs, leaderMovesOn, type Move } from "../system/resource.ts";
import { readyWarning } from "../pass/ready-warning.ts";
import type { MoveRequest } from "../pass/types.ts";
import type { BalancerEvent } from "../pass/types.ts";
import { currentHolder } from "../pass/lease.ts";
import { leaseHeldBy, leaseWriteFor, type LeaseWrite } from "../pass/lease-decision.ts";
import { loadOf } from "../leaders/load.ts";
import { planLeaderMove } from "../leaders/plan-leader-move.ts";
import { assignPools, type Overlap } from "./pools.ts";
import { rolloutHold } from "../pass/rollout.ts";
import { PENDING_POLL, pollFor } from "../pass/schedule.ts";
import { groupsUnsettled } from "../leaders/settled.ts";
import { describeGroup, type Group } from "../leaders/snapshot.ts";
import type { Reason } from "../../../shared/api/index.ts";

export interface AccountDecision {
  /** The whole status this balancer owns, written guarded by the resourceVersion read: the claim of the move. */
  status: NatsBalancerStatus;
  move?: MoveRequest;
  events: BalancerEvent[];
  poll: Poll;
  summary: string;
  /** The move lease to take or renew before the claim, or let go after it. */
  lease?: LeaseWrite;
}

const condition = (type: string, status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type,
  status,
  reason,
  message,
});

const overlapText = (overlaps: readonly Overlap[]) =>
  overlaps.map((o) => `stream ${o.stream} (${o.resource}) is selected by pools ${o.pools.join(", ")}`).join("; ");

/** The system balancer with a move pending on one of the account's streams (B6), if any. */
function systemMoveOn(observed: AccountObserved, account: string, streams: ReadonlySet<string>): string | undefined {
  for (const balancer of observed.systemBalancers) {
    if (balancer.metadata.deletionTimestamp) continue;
    const move = (balancer.status?.pending ?? []).find((m) => m.account === account && streams.has(m.stream ?? ""));
    if (move) return `${describeBalancer(balancer)} has a move pending on stream ${move.stream ?? ""}`;
  }
  return undefined;
}

/** What one pass does for the account balancer observed, at `now`, the move lease included. */
export function decideAccount(observed: AccountObserved, now: Date): AccountDecision {
  const { balancer, nats } = observed;
  const previous: NatsBalancerStatus = balancer.status ?? {};
  const generation = balancer.metadata.generation;
  const base = generation !== undefined ? { observedGeneration: generation } : {};
  const interval = intervalMs(balancer);
  const steady = pollFor(interval ?? 60_000);
  const { lastMove } = previous;

  const failed = (reason: Reason, message: string): AccountDecision => {
    const update = condition("Ready", "False", reason, message);
    const conditions = setConditions(
      previous.conditions,
      [update, condition("Holding", "True", "NotObserved", `no move is made: ${message}`)],
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

  const { account, cluster, roster } = nats;
  const evacuating = new Set(nats.evacuating.map((s) => `${s.account}\u0000${s.stream}`));
  const inScope = (g: Group) =>
    (!g.placementCluster || g.placementCluster === cluster) && !evacuating.has(`${g.account}\u0000${g.stream}`);
  const streams = nats.groups.filter((g) => g.kind === "stream").map((g) => g.stream);
  const assignment = assignPools(balancer.spec.pools ?? [], observed.resources, streams);
  const poolGroups = assignment.pools.map((p) => {
    const members = new Set(p.streams);
    return { name: p.name, groups: nats.groups.filter((g) => members.has(g.stream)) };
  });
  const pools: PoolStatus[] = poolGroups.map((p) => ({
    name: p.name,
    streams: p.groups.filter((g) => g.kind === "stream").length,
    leaderSkew: loadOf({ cluster, roster, silent: [], groups: p.groups }).skew.leaders,
  }));
  const skews = pools.map((p) => `${p.name} ${p.leaderSkew ?? 0}`).join(", ");

  const overlapping = assignment.overlaps.length > 0;
  const overlapUpdate = overlapping
    ? condition("Overlapping", "True", "PoolsOverlap", `no move is made: ${overlapText(assignment.overlaps)}`)
    : condition("Overlapping", "False", "PoolsDisjoint", "every stream is in one pool at most");
  const wasOverlapping = findCondition(previous.conditions, "Overlapping")?.status === "True";
  const overlapEvents: BalancerEvent[] =
    overlapping && !wasOverlapping ? [{ type: "Warning", reason: "PoolsOverlap", note: overlapUpdate.message }] : [];
  const balancing = condition(
    "Ready",
    "True",
    "Balancing",
    `balancing ${streams.length} stream leaders of account ${account} in ${pools.length} pool${pools.length === 1 ? "" : "s"} on ${roster.length} servers of NATS cluster ${cluster}`,
  );

  const me = describeAccountBalancer(balancer);
  const pending = currentHolder(nats.lease, now) === me;
  const settle = (
    reason: Reason,
    message: string,
    rest: { move?: MoveRequest; lastMove?: Move; events?: BalancerEvent[]; pending?: boolean; lease?: boolean } = {},
  ): AccountDecision => {
    const update = condition("Holding", reason === "Settled" ? "False" : "True", reason, message);
    const lease =
      rest.lease === false
        ? undefined
        : leaseWriteFor(nats.lease, me, now, { move: rest.move !== undefined, pending: rest.pending === true });
    const moved = rest.lastMove ?? lastMove;
    return {
      status: {
        ...base,
        conditions: setConditions(previous.conditions, [balancing, update, overlapUpdate], now),
        pools,
        ...(moved ? { lastMove: moved } : {}),
      },
      ...(rest.move ? { move: rest.move } : {}),
      events: [...overlapEvents, ...(rest.events ?? [])],
      poll: rest.move || rest.pending ? PENDING_POLL : steady,
      summary: message,
      ...(lease ? { lease } : {}),
    };
  };

  const held = leaseHeldBy(nats.lease, me, cluster, now);
  if (held) return settle("MoveLeaseHeld", held, { lease: false });
  const unsettled = groupsUnsettled(nats.groups.filter(inScope)) ?? rolloutHold(observed.clusters, roster);
  if (pending && unsettled)
    return settle("MovePending", `waiting for the last move to settle: ${unsettled}`, { pending: true });
  if (overlapping) return settle("PoolsOverlap", overlapUpdate.message);
  const yielding = systemMoveOn(observed, account, new Set(streams));
  if (yielding) return settle("YieldingToSystemBalancer", yielding);
  if (unsettled) return settle("Unsettled", unsettled);
  if (!leaderMovesOn(balancer)) return settle("Settled", `leader moves are off; leader skew per pool: ${skews}`);

  const planned = poolGroups
    .map((p) => ({ pool: p.name, move: planLeaderMove(p.groups, roster, inScope) }))
    .find((p) => p.move !== undefined);
  if (!planned?.move) return settle("Settled", `settled, nothing to move: leader skew per pool: ${skews}`);
  const { group, from, to } = planned.move;
  const note = `leader of ${describeGroup(group)} in pool ${planned.pool} from ${from} to ${to}`;
  const due = lastMove?.time ? Date.parse(lastMove.time) + interval : 0;
  if (now.getTime() < due)
    return settle("Settled", `settled; next move (${note}) not before ${new Date(due).toISOString()}`);
  const move: Move = {
    kind: "Leader",
    account,
    stream: group.stream,
    consumer: group.consumer ?? "",
    from,
    to,
    time: now.toISOString(),
  };
  return settle("Settled", `settled; moving the ${note}`, {
    lastMove: move,
    events: [{ type: "Normal", reason: "MoveStarted", note: `moving the ${note}` }],
    move: {
      target: { account, stream: group.stream, ...(group.consumer ? { consumer: group.consumer } : {}) },
      from,
      to,
      // The account's own API: the stepdown subject is unprefixed.
      ownAccount: account,
    },
  });
}
