// The roster of servers an account's distribution is counted against (pure). A server that misses
// one STATSZ poll may only be slow, or restarting under load: dropping it at once would count an
// account current, a delete confirmed or a user's connections all closed while that server still
// holds the old state. So a server stays until it misses three polls in a row. The count lives in
// the account's status.distribution (a function keeps nothing between deliveries), with the time
// of the poll it was last counted for, so the several reads of one delivery, which share one
// STATSZ poll, count it once.
import type { NatsAccountStatus } from "../../shared/api/auth/nats-account.ts";

type Distribution = NonNullable<NatsAccountStatus["distribution"]>;
export type RosterServer = NonNullable<Distribution["roster"]>[number];

/** Polls in a row a server may miss and stay. */
export const MISSES_TO_LEAVE = 3;

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
  // A poll already counted (an earlier read in the same delivery) changes nothing.
  const counted = previous?.polledAt === poll.at;
  const servers = new Map<string, RosterServer>();
  for (const server of previous?.roster ?? []) {
    if (answered.has(server.id)) continue;
    const missed = (server.missedPolls ?? 0) + (counted ? 0 : 1);
    if (missed < MISSES_TO_LEAVE) servers.set(server.id, { id: server.id, missedPolls: missed });
  }
  for (const id of answered) servers.set(id, { id });
  const sorted = [...servers.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const missing = sorted.some((s) => (s.missedPolls ?? 0) > 0);
  return { servers: sorted, ...(missing ? { polledAt: poll.at } : {}) };
}

/** The roster's part of status.distribution. */
export const rosterStatus = (roster: Roster): Pick<Distribution, "roster" | "polledAt"> => ({
  roster: roster.servers,
  ...(roster.polledAt ? { polledAt: roster.polledAt } : {}),
});
