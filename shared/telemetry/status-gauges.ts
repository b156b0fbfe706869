// Gauges read from the status the functions write (and a NatsAccount's JWT expiry, from its status.jwt). Every status write goes through
// `shared/kube/status.ts#writeStatus`, which hands the status it leaves on the object to
// `recordStatus`; the gauges report the last status seen per object when the SDK collects.
// With cumulative temporality (OTLP's default, and Prometheus) the SDK keeps reporting every
// series it has seen at its last value, so a series that stops being current is not dropped but
// set to 0: a condition's old reason, a removed condition, what a reopened gate waited for.
import type { Attributes, Meter, ObservableResult } from "@opentelemetry/api";
import type { NatsClusterStatus } from "../api/cluster/nats-cluster-status.ts";
import type { Condition } from "../api/common/conditions.ts";

/** Instrument names, as behaviour.md 4.2 gives them. */
export const STATUS_GAUGES = {
  condition: "nats_operator.condition",
  rolloutGate: "nats_operator.rollout.gate",
  rolloutPendingServers: "nats_operator.rollout.pending_servers",
  evacuationRemaining: "nats_operator.evacuation.remaining",
  evacuationStalePlacements: "nats_operator.evacuation.stale_placements",
  balancerLeaderSkew: "nats_operator.balancer.leader_skew",
  balancerPendingMoves: "nats_operator.balancer.pending_moves",
  accountJwtExpiry: "nats_operator.account.jwt_expiry",
} as const;

/** What the gauges need to know of the object a status belongs to. */
export interface StatusOwner {
  kind: string;
  metadata: { namespace?: string; name: string };
}

interface Point {
  value: number;
  attributes: Attributes;
}

/** Series by a key of their attributes, so a series once seen can be set back to 0. */
type Series = Map<string, Point>;

/** Per object (`kind/namespace/name`): its condition series. */
const conditionSeries = new Map<string, Series>();
/** Per NatsCluster: its gate series (one per `waiting_for`) and its pending-servers point. */
const rolloutSeries = new Map<string, { gate: Series; pending: Point }>();
/** Per NatsClusterEvacuation: streams still to leave, and moved streams whose config names the source. */
const evacuationSeries = new Map<string, { remaining: Point; stale: Point }>();
/** Per NatsSystemBalancer: its leader skew, and its pending moves per `move_kind`. */
const balancerSeries = new Map<string, { skew: Point; pending: Series }>();
/** Per NatsBalancer: its leader skew per pool (`status.pools[].leaderSkew`). */
const poolSeries = new Map<string, Series>();
/** Per NatsAccount whose JWT expires: when (seconds since the epoch), read at collection as seconds left. */
const accountExpiry = new Map<string, { exp: number; attributes: Attributes }>();

/** A JWT's `exp` claim (seconds), read without verifying; undefined for a JWT that never expires. */
function expiryOf(jwt: string): number | undefined {
  try {
    const claims = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp?: unknown };
    return typeof claims.exp === "number" ? claims.exp : undefined;
  } catch {
    return undefined;
  }
}

type RolloutStatus = NatsClusterStatus["rollout"];

/** Sets every series of `series` to 0, then the `current` ones to their value. */
function replaceSeries(series: Series, current: Iterable<[string, Point]>): void {
  for (const point of series.values()) point.value = 0;
  for (const [key, point] of current) series.set(key, point);
}

function conditionsOf(status: object): readonly Condition[] | undefined {
  return "conditions" in status && Array.isArray(status.conditions)
    ? (status.conditions as readonly Condition[])
    : undefined;
}

/**
 * Takes the status an object now shows as the gauges' reading for it. A status without
 * `conditions` says nothing about them: the earlier reading stays, so a partial status cannot
 * blank what another write reported. A NatsCluster status without `rollout` has none under way.
 */
export function recordStatus(object: StatusOwner, status: object | undefined): void {
  if (!status) return;
  const identity: Attributes = {
    kind: object.kind,
    namespace: object.metadata.namespace ?? "",
    name: object.metadata.name,
  };
  const key = `${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`;
  const conditions = conditionsOf(status);
  if (conditions) {
    const series = conditionSeries.get(key) ?? new Map<string, Point>();
    conditionSeries.set(key, series);
    replaceSeries(
      series,
      conditions.map((c) => [
        `${c.type}/${c.reason}`,
        { value: c.status === "True" ? 1 : 0, attributes: { ...identity, type: c.type, reason: c.reason } },
      ]),
    );
  }
  // An account JWT that expires is re-signed at half its lifetime: a gauge falling toward 0 says
  // renewal (or distribution) stopped. A status without `jwt` says nothing of it.
  if (object.kind === "NatsAccount" && "jwt" in status && typeof status.jwt === "string") {
    const exp = expiryOf(status.jwt);
    if (exp === undefined) accountExpiry.delete(key);
    else accountExpiry.set(key, { exp, attributes: identity });
  }
  if (object.kind === "NatsCluster") {
    const rollout = "rollout" in status ? (status.rollout as RolloutStatus) : undefined;
    const waitingFor = rollout?.gate ? (rollout.gate.waitingFor ?? "") : "";
    const entry = rolloutSeries.get(key) ?? {
      gate: new Map<string, Point>(),
      pending: { value: 0, attributes: identity },
    };
    rolloutSeries.set(key, entry);
    replaceSeries(entry.gate, [
      [waitingFor, { value: rollout?.gate ? 1 : 0, attributes: { ...identity, waiting_for: waitingFor } }],
    ]);
    entry.pending.value = rollout?.pending?.length ?? 0;
  }
  if (object.kind === "NatsSystemBalancer") {
    const entry = balancerSeries.get(key) ?? {
      skew: { value: 0, attributes: { ...identity, pool: "" } },
      pending: new Map<string, Point>(),
    };
    balancerSeries.set(key, entry);
    const skew = "skew" in status ? (status.skew as { leaders?: number } | undefined) : undefined;
    entry.skew.value = skew?.leaders ?? 0;
    const pending = "pending" in status && Array.isArray(status.pending) ? (status.pending as { kind?: string }[]) : [];
    replaceSeries(
      entry.pending,
      ["Leader", "Placement"].map((kind) => [
        kind,
        { value: pending.filter((m) => m.kind === kind).length, attributes: { ...identity, move_kind: kind } },
      ]),
    );
  }
  if (object.kind === "NatsBalancer" && "pools" in status && Array.isArray(status.pools)) {
    const series = poolSeries.get(key) ?? new Map<string, Point>();
    poolSeries.set(key, series);
    replaceSeries(
      series,
      (status.pools as { name?: string; leaderSkew?: number }[]).map((p) => [
        p.name ?? "",
        { value: p.leaderSkew ?? 0, attributes: { ...identity, pool: p.name ?? "" } },
      ]),
    );
  }
  if (object.kind === "NatsClusterEvacuation") {
    const entry = evacuationSeries.get(key) ?? {
      remaining: { value: 0, attributes: identity },
      stale: { value: 0, attributes: identity },
    };
    evacuationSeries.set(key, entry);
    entry.remaining.value = "remaining" in status && typeof status.remaining === "number" ? status.remaining : 0;
    entry.stale.value =
      "stalePlacement" in status && Array.isArray(status.stalePlacement) ? status.stalePlacement.length : 0;
  }
}

/** Forgets every reading; for tests. */
export function resetStatusGauges(): void {
  conditionSeries.clear();
  rolloutSeries.clear();
  evacuationSeries.clear();
  balancerSeries.clear();
  poolSeries.clear();
  accountExpiry.clear();
}

const registered = new WeakSet<Meter>();

/** Creates the gauges on `meter` (once per meter); the SDK start calls it with the global meter. */
export function registerStatusGauges(meter: Meter): void {
  if (registered.has(meter)) return;
  registered.add(meter);
  const observe = (points: () => Iterable<Point>) => (result: ObservableResult) => {
    for (const point of points()) result.observe(point.value, point.attributes);
  };
  meter
    .createObservableGauge(STATUS_GAUGES.condition, {
      description: "1 while the condition is True, 0 while it is False or Unknown, per object, type and reason",
    })
    .addCallback(observe(() => [...conditionSeries.values()].flatMap((series) => [...series.values()])));
  meter
    .createObservableGauge(STATUS_GAUGES.rolloutGate, {
      description: "1 while a NatsCluster's rollout gate is closed, with what it waits for",
    })
    .addCallback(observe(() => [...rolloutSeries.values()].flatMap((entry) => [...entry.gate.values()])));
  meter
    .createObservableGauge(STATUS_GAUGES.rolloutPendingServers, {
      description: "Servers of a NatsCluster still to update in its rollout",
      unit: "{server}",
    })
    .addCallback(observe(() => [...rolloutSeries.values()].map((entry) => entry.pending)));
  meter
    .createObservableGauge(STATUS_GAUGES.evacuationRemaining, {
      description: "Streams a NatsClusterEvacuation still has to move off its source",
      unit: "{stream}",
    })
    .addCallback(observe(() => [...evacuationSeries.values()].map((entry) => entry.remaining)));
  meter
    .createObservableGauge(STATUS_GAUGES.evacuationStalePlacements, {
      description: "Moved streams no resource owns whose config still names the evacuated cluster",
      unit: "{stream}",
    })
    .addCallback(observe(() => [...evacuationSeries.values()].map((entry) => entry.stale)));
  meter
    .createObservableGauge(STATUS_GAUGES.balancerLeaderSkew, {
      description: "Most leaders on one server minus fewest, per balancer (and pool)",
      unit: "{leader}",
    })
    .addCallback(
      observe(() => [
        ...[...balancerSeries.values()].map((entry) => entry.skew),
        ...[...poolSeries.values()].flatMap((series) => [...series.values()]),
      ]),
    );
  meter
    .createObservableGauge(STATUS_GAUGES.balancerPendingMoves, {
      description: "Moves a NatsSystemBalancer requested and has not yet seen complete, by kind",
      unit: "{move}",
    })
    .addCallback(observe(() => [...balancerSeries.values()].flatMap((entry) => [...entry.pending.values()])));
  meter
    .createObservableGauge(STATUS_GAUGES.accountJwtExpiry, {
      description: "Seconds until a NatsAccount's JWT expires; absent for one that never expires",
      unit: "s",
    })
    .addCallback(
      observe(() => {
        const now = Date.now() / 1000;
        return [...accountExpiry.values()].map((e) => ({ value: Math.round(e.exp - now), attributes: e.attributes }));
      }),
    );
}
