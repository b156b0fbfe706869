// The roster of servers an account's distribution is counted against (pure). A server that misses
// one STATSZ poll may only be slow, or restarting under load: dropping it at once would count an
// account current, a delete confirmed or a user's connections all closed while that server still
// holds the old state. So a server stays until it misses three polls in a row. The count lives in
// the account's status.distribution (a function keeps nothing between deliveries), with the time
// of the poll it was last counted for. Polls closer together than the poll interval count as one:
// the reads of one delivery share one STATSZ poll, and a burst of events (each status write of a
// waiting account is one) must not run a server out of the roster in seconds.
import type { NatsAccountStatus } from "../../../shared/api/index.ts";

type Distribution = NonNullable<NatsAccountStatus["distribution"]>;
export type RosterServer = NonNullable<Distribution["roster"]>[number];

/** Polls in a row a server may miss and stay. */
export const MISSES_TO_LEAVE = 3;

/** Polls closer together than this count once: the 10 s poll interval, less the ticks' jitter. */
export const POLL_GAP_MS = 8_000;

export interface RosterPoll {
  /** Server IDs that answered STATSZ. */
  answered: readonly string[];
  /** When that STATSZ poll was made (RFC 3339). */
  at: string;
}

export interface Roster {
  /** Every server counted, sorted by ID: those that answered and those missing fewer than three polls. */
  servers: RosterServer[];
  /** The poll misses were counted for; undefined when no server is missing. */
  polledAt?: string;
}

/** The roster after `poll`, from the one status recorded. */
export function nextRoster(previous: Distribution | undefined, poll: RosterPoll): Roster {
  const answered = new Set(poll.answered);
  // A poll already counted, or one made too soon after it, changes nothing.
  const counted = previous?.polledAt !== undefined && Date.parse(poll.at) - Date.parse(previous.polledAt) < POLL_GAP_MS;
  const servers = new Map<string, RosterServer>();
  for (const server of previous?.roster ?? []) {
    if (answered.has(server.id)) continue;
    const missed = (server.missedPolls ?? 0) + (counted ? 0 : 1);
    if (missed < MISSES_TO_LEAVE) servers.set(server.id, { id: server.id, missedPolls: missed });
  }
  for (const id of answered) servers.set(id, { id });
  const sorted = [...servers.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const missing = sorted.some((s) => (s.missedPolls ?? 0) > 0);
  // The time of the poll last counted: a poll too soon after it must not move it on either.
  const polledAt = counted ? previous?.polledAt : poll.at;
  return { servers: sorted, ...(missing && polledAt ? { polledAt } : {}) };
}

/** The roster's part of status.distribution. */
export const rosterStatus = (roster: Roster): Pick<Distribution, "roster" | "polledAt"> => ({
  roster: roster.servers,
  ...(roster.polledAt ? { polledAt: roster.polledAt } : {}),
});
