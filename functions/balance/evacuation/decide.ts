// The decision of one evacuation pass, from what observe-evacuation.ts read and the time: pure.
// A pass counts the moves seen complete, lists what it may not move, and requests moves for as
// many waiting streams as there are free slots. It moves nothing while the source carries the
// target tags, no server carries them, or any server of the NATS system is down.
import { type Condition, type ConditionUpdate, findCondition, setConditions } from "../../../shared/kube/index.ts";
import type { Poll } from "../../../shared/runtime/index.ts";
import type { BalancerEvent, StreamRef } from "../pass/types.ts";
import {
  carriesAll,
  MAX_IN_FLIGHT,
  type NatsClusterEvacuationStatus,
  type PinnedResource,
  REQUEST_GRACE_MS,
  type RequestedMove,
  type StalePlacement,
} from "./resource.ts";
import type { EvacuationObserved, OwningResource } from "./observe.ts";
import type { SourceStream, SourceView } from "./source.ts";
import type { Reason } from "../../../shared/api/index.ts";

export interface EvacuationDecision {
  /** The whole status the evacuation owns, written guarded by the resourceVersion read: the claim of the moves. */
  status: NatsClusterEvacuationStatus;
  /** Moves to request once the status write has claimed them. */
  moves: StreamRef[];
  events: BalancerEvent[];
  /** How often to look again; false when nothing is left to watch. */
  poll: Poll | false;
  summary: string;
}

/** While moves are in flight or waiting: often enough to keep the slots full. */
export const MOVING_POLL: Poll = { every: "5s" };
/** While waiting on something outside the evacuation (owners, a connection, a pass that failed). */
export const WAITING_POLL: Poll = { every: "1m" };

const ready = (status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type: "Ready",
  status,
  reason,
  message,
});
const progressing = (status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type: "Progressing",
  status,
  reason,
  message,
});

const keyOf = (s: { account?: string; stream?: string; name?: string }) =>
  `${s.account ?? ""}\u0000${s.stream ?? s.name ?? ""}`;

/** How a stream is named in messages and Events. */
export const describeStream = (s: StreamRef) => `stream ${s.stream} of account ${s.account}`;

/** Names a few, then "and N more". */
function listOf(items: readonly string[], shown = 5): string {
  const more = items.length > shown ? ` and ${items.length - shown} more` : "";
  return `${items.slice(0, shown).join(", ")}${more}`;
}

/** A Warning when Ready turns False for a reason it did not show before: once, not every pass. */
function warningOnce(
  previous: readonly Condition[] | undefined,
  reason: Reason,
  event: string,
  note: string,
): BalancerEvent[] {
  const before = findCondition(previous, "Ready");
  if (before?.status === "False" && before.reason === reason) return [];
  return [{ type: "Warning", reason: event, note }];
}

/** Why no move may be made or counted done: a source server silent, no meta leader, a server offline. */
export function serversDownBecause(view: SourceView): string | undefined {
  if (view.silent.length > 0)
    return `${listOf(view.silent)} of NATS cluster ${view.cluster} did not answer every JSZ page`;
  if (!view.meta.leader) return "the meta group has no leader";
  if (view.meta.offline.length > 0)
    return `the meta leader ${view.meta.leader} counts ${listOf(view.meta.offline)} offline`;
  return undefined;
}

interface Sorted {
  movable: SourceStream[];
  pinned: PinnedResource[];
  /** Streams whose resource pins another cluster: their owners move them. */
  owned: SourceStream[];
}

/** Splits the source's streams: those whose resource pins placement.cluster are never moved. */
function sortStreams(view: SourceView, resources: readonly OwningResource[], from: string): Sorted {
  const byUid = new Map(resources.map((r) => [r.uid, r]));
  const sorted: Sorted = { movable: [], pinned: [], owned: [] };
  for (const stream of view.streams) {
    const owner = stream.owner ? byUid.get(stream.owner) : undefined;
    if (!owner?.placementCluster) sorted.movable.push(stream);
    else if (owner.placementCluster === from)
      sorted.pinned.push({ kind: owner.kind, namespace: owner.namespace, name: owner.name });
    else sorted.owned.push(stream);
  }
  return sorted;
}

/** What one pass does for the evacuation observed, at `now`. */
export function decideEvacuation(observed: EvacuationObserved, now: Date): EvacuationDecision {
  const { evacuation, source, resources } = observed;
  const previous: NatsClusterEvacuationStatus = evacuation.status ?? {};
  const generation = evacuation.metadata.generation;
  const from = evacuation.spec.from.cluster;
  const tags = evacuation.spec.to.serverTags;
  const carried: NatsClusterEvacuationStatus = {
    ...previous,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };

  // Nothing is moved and nothing counted done: the status keeps what it had.
  const hold = (reason: Reason, message: string, poll: Poll | false, events: BalancerEvent[]): EvacuationDecision => ({
    status: {
      ...carried,
      conditions: setConditions(
        previous.conditions,
        [ready("False", reason, message), progressing("False", reason, message)],
        now,
      ),
    },
    moves: [],
    events,
    poll,
    summary: `${reason}: ${message}`,
  });

  if (source.kind === "unavailable") {
    // A source that does not answer is transient; anything else is a problem to report once.
    const events =
      source.reason === "ServersDown"
        ? []
        : warningOnce(previous.conditions, source.reason, source.reason, source.message);
    return hold(source.reason, source.message, WAITING_POLL, events);
  }
  const { view } = source;

  const carrying = view.servers.filter((s) => carriesAll(s.tags, tags)).map((s) => s.name);
  if (carrying.length > 0) {
    const message = `${listOf(carrying)} of NATS cluster ${from} carry the target tags ${tags.join(", ")}: streams could land back on the source`;
    return hold(
      "TargetTagsInSource",
      message,
      false,
      warningOnce(previous.conditions, "TargetTagsInSource", "EvacuationRefused", message),
    );
  }
  if (view.targets.length === 0) {
    const message = `no server of the NATS system carries the target tags ${tags.join(", ")}: no stream could land anywhere`;
    return hold(
      "NoTargetServers",
      message,
      WAITING_POLL,
      warningOnce(previous.conditions, "NoTargetServers", "EvacuationRefused", message),
    );
  }
  const down = serversDownBecause(view);
  if (down) return hold("ServersDown", `no move is made or counted done: ${down}`, MOVING_POLL, []);

  const roster = new Set(view.servers.map((s) => s.name));
  const present = new Set(view.streams.map(keyOf));
  const requested = previous.requested ?? [];
  const completed = requested.filter((r) => !present.has(keyOf(r)));
  const moved = (previous.moved ?? 0) + completed.length;

  const { movable, pinned, owned } = sortStreams(view, resources, from);
  const requestedAt = new Map(requested.map((r) => [keyOf(r), r]));
  const inGrace = (s: SourceStream) => {
    const time = requestedAt.get(keyOf(s))?.time;
    return time !== undefined && now.getTime() - Date.parse(time) < REQUEST_GRACE_MS;
  };
  // In flight: a copy already outside the source, or requested so recently the meta leader may
  // not have added the new peers yet (a refused request waits out the same grace). A request
  // that shows neither is made again.
  const inFlight = movable.filter((s) => s.peers.some((p) => !roster.has(p)) || inGrace(s));
  const flying = new Set(inFlight.map(keyOf));
  const waiting = movable.filter((s) => !flying.has(keyOf(s)));
  const starting = waiting.slice(0, Math.max(0, MAX_IN_FLIGHT - inFlight.length));
  const time = now.toISOString();
  const nextRequested: RequestedMove[] = [
    ...requested.filter((r) => flying.has(keyOf(r))),
    ...starting.map((s) => ({ account: s.account, stream: s.name, time })),
  ];

  // A stream no resource owns keeps the source in its config after the move: listed for good,
  // since once it has left, the source's servers no longer report it.
  const ownedUids = new Set(resources.map((r) => r.uid));
  const stale: StalePlacement[] = [...(previous.stalePlacement ?? [])];
  const requestedKeys = new Set(nextRequested.map(keyOf));
  for (const s of movable)
    if (
      requestedKeys.has(keyOf(s)) &&
      s.placementCluster === from &&
      !(s.owner && ownedUids.has(s.owner)) &&
      !stale.some((e) => keyOf(e) === keyOf(s))
    )
      stale.push({ account: s.account, name: s.name });

  const counts = {
    moved,
    inFlight: inFlight.length + starting.length,
    remaining: movable.length,
    requested: nextRequested,
    pinned,
    stalePlacement: stale,
  };
  const events: BalancerEvent[] = [
    ...completed.map((r) => ({
      type: "Normal" as const,
      reason: "MoveDone",
      note: `${describeStream({ account: r.account ?? "", stream: r.stream ?? "" })} left NATS cluster ${from}`,
    })),
    ...starting.map((s) => ({
      type: "Normal" as const,
      reason: "MoveStarted",
      note: `moving ${describeStream({ account: s.account, stream: s.name })} off NATS cluster ${from} to servers tagged ${tags.join(", ")}`,
    })),
  ];
  const pinnedText = () =>
    `${pinned.length} resource${pinned.length === 1 ? "" : "s"} pin NATS cluster ${from}: ${listOf(pinned.map((p) => `${p.kind} ${p.namespace}/${p.name}`))}`;

  let conditions: ConditionUpdate[];
  let poll: Poll | false;
  if (movable.length > 0) {
    const message = `moving ${movable.length} stream${movable.length === 1 ? "" : "s"} off NATS cluster ${from}: ${counts.inFlight} in flight, ${moved} moved${pinned.length > 0 ? `; ${pinnedText()}` : ""}`;
    conditions = [ready("False", "Moving", message), progressing("True", "Moving", message)];
    poll = MOVING_POLL;
  } else if (pinned.length > 0) {
    const message = `${pinnedText()}; their owners must move them`;
    conditions = [ready("False", "PinnedObjects", message), progressing("False", "NothingMovable", message)];
    poll = WAITING_POLL;
  } else if (owned.length > 0) {
    const message = `${owned.length} stream${owned.length === 1 ? "" : "s"} still in NATS cluster ${from} are being moved by their resources' placement.cluster: ${listOf(owned.map((s) => s.name))}`;
    conditions = [ready("False", "AwaitingOwners", message), progressing("False", "NothingMovable", message)];
    poll = WAITING_POLL;
  } else {
    const message = `no stream is left in NATS cluster ${from}: ${moved} moved`;
    conditions = [ready("True", "Evacuated", message), progressing("False", "Evacuated", message)];
    poll = false;
  }
  return {
    status: { ...carried, ...counts, conditions: setConditions(previous.conditions, conditions, now) },
    moves: starting.map((s) => ({ account: s.account, stream: s.name })),
    events,
    poll,
    summary: conditions[0]?.message ?? "",
  };
}

/**
 * The status after the server refused some of the moves a pass claimed: Ready says why. They stay
 * in `requested`, so a later pass asks again only once the request grace has passed: a refusal
 * that stands (no suitable peers) is retried once a minute, not on every tick.
 */
export function withRefusals(
  status: NatsClusterEvacuationStatus,
  refusals: readonly { move: StreamRef; why: string }[],
  now: Date,
): NatsClusterEvacuationStatus {
  const message = `the server refused ${refusals.length} move${refusals.length === 1 ? "" : "s"}: ${listOf(
    refusals.map((r) => `${describeStream(r.move)}: ${r.why}`),
    3,
  )}`;
  return { ...status, conditions: setConditions(status.conditions, [ready("False", "MoveRefused", message)], now) };
}
