// Which pool each stream of the account belongs to (B5): a declared pool selects NatsStream,
// NatsKeyValue and NatsObjectStore resources by label; a stream selected by several pools is
// reported as an overlap; a stream no pool selects, or without a resource, falls in `(default)`.
// Consumers follow their stream. Pure.
import type { LabelSelector } from "../../../shared/api/index.ts";
import { matchesSelector } from "./selector.ts";

export const DEFAULT_POOL = "(default)";

export interface PoolSpec {
  name: string;
  selector: LabelSelector;
}

/** A NatsStream, NatsKeyValue or NatsObjectStore on the balancer's connection, by the stream it keeps. */
export interface PoolResource {
  /** `NatsStream ns/name`, for messages. */
  describe: string;
  /** The server-side stream: the stream name, `KV_<bucket>` or `OBJ_<bucket>`. */
  stream: string;
  labels: Readonly<Record<string, string>>;
}

export interface Overlap {
  stream: string;
  resource: string;
  pools: string[];
}

export interface PoolAssignment {
  /** Pools in declaration order, then `(default)` when it holds streams; each with its streams, sorted. */
  pools: { name: string; streams: string[] }[];
  overlaps: Overlap[];
}

export function assignPools(
  declared: readonly PoolSpec[],
  resources: readonly PoolResource[],
  streams: readonly string[],
): PoolAssignment {
  const members = new Map<string, string[]>(declared.map((p) => [p.name, []]));
  const fallback: string[] = [];
  const overlaps: Overlap[] = [];
  for (const stream of [...streams].sort()) {
    const resource = resources.find((r) => r.stream === stream);
    const matching = resource ? declared.filter((p) => matchesSelector(p.selector, resource.labels)) : [];
    const [first] = matching;
    if (!first) {
      fallback.push(stream);
      continue;
    }
    if (resource && matching.length > 1)
      overlaps.push({ stream, resource: resource.describe, pools: matching.map((p) => p.name) });
    members.get(first.name)?.push(stream);
  }
  const pools = declared.map((p) => ({ name: p.name, streams: members.get(p.name) ?? [] }));
  if (declared.length === 0 || fallback.length > 0) pools.push({ name: DEFAULT_POOL, streams: fallback });
  return { pools, overlaps };
}
