// The NatsSystemBalancer as the function reads it: the API schema's types, and its defaults.
import {
  KINDS,
  type NatsSystemBalancer as BalancerResource,
  type NatsSystemBalancerStatus,
} from "../../../shared/api/index.ts";
import type { KubeObject, ObjectMeta } from "../../../shared/kube/index.ts";
import { durationToNanos } from "../../../shared/units/index.ts";

export type { NatsSystemBalancerStatus };
/** The schema's type, as the API server returns it: named and namespaced. */
export type NatsSystemBalancer = Omit<BalancerResource, "metadata"> &
  KubeObject & { metadata: ObjectMeta & { name: string; namespace: string } };
export type Move = NonNullable<NatsSystemBalancerStatus["lastMove"]>;
export type Capabilities = NonNullable<NatsSystemBalancerStatus["capabilities"]>;

export const SYSTEM_BALANCER = KINDS.NatsSystemBalancer;

/** Least time between two moves when `interval` is omitted. */
export const DEFAULT_INTERVAL_MS = 60_000;

/** A duration ("1m", "1h30m", "0.5s") in milliseconds; undefined when unreadable. */
export function durationMs(text: string): number | undefined {
  const nanos = durationToNanos(text);
  return nanos === undefined ? undefined : nanos / 1e6;
}

/** The spec's interval in milliseconds: the default when omitted, undefined when not a positive duration. */
export function intervalMs(balancer: { spec: { interval?: string } }): number | undefined {
  const text = balancer.spec.interval;
  if (text === undefined) return DEFAULT_INTERVAL_MS;
  const ms = durationMs(text);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

export const leaderMovesOn = (balancer: { spec: { moves?: { leader?: boolean } } }) =>
  balancer.spec.moves?.leader !== false;
export const placementMovesAsked = (balancer: NatsSystemBalancer) => balancer.spec.moves?.placement === true;

export const describeBalancer = (b: NatsSystemBalancer) =>
  `NatsSystemBalancer ${b.metadata.namespace}/${b.metadata.name}`;
