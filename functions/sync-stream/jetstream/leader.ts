// A new replicated group answers before its leader is elected; a Synced status should name the leader.
import type { ClusterInfo } from "@nats-io/jetstream";
import type { ServerObject } from "../types.ts";

/** How often, and how long apart, the server object is re-read while its group has no leader (about 1.5 s in all). */
export const leaderWait = { reads: 6, pauseMs: 250 };

/** A replicated group (a clustered server's info) that names no leader yet. */
export function awaitsLeader(info: Record<string, unknown>): boolean {
  const cluster = info.cluster as ClusterInfo | undefined;
  return cluster !== undefined && !cluster.leader;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Re-reads the server object a few times, briefly, while its group has no
 * leader, so the status written names one. Bounded: a group still without a
 * leader is left to the settle schedule. A read that fails or finds nothing
 * ends the wait with what was last read.
 */
export async function withLeader(
  observed: ServerObject,
  reread: () => Promise<ServerObject | undefined>,
  options: { reads?: number; pauseMs?: number; pause?: (ms: number) => Promise<void> } = {},
): Promise<ServerObject> {
  const { reads = leaderWait.reads, pauseMs = leaderWait.pauseMs, pause = sleep } = options;
  let current = observed;
  for (let read = 0; read < reads && awaitsLeader(current.info); read++) {
    await pause(pauseMs);
    const next = await reread().catch(() => undefined);
    if (next === undefined) break;
    current = next;
  }
  return current;
}
