// The one leader move worth making: of the groups the balancer may move, the (group, member) pair
// that takes the most from the busiest leader to the idlest member, counted separately for stream
// and for consumer leaders. A move must gain more than one leader, so two servers one leader apart
// never trade a leader back and forth.
import type { Group, Member } from "./snapshot.ts";

/** How far behind a member may be and still take leadership, in Raft entries. */
export const LEADER_LAG_TOLERANCE = 4096;

export interface LeaderMove {
  group: Group;
  from: string;
  to: string;
}

const canLead = (member: Member) => !member.offline && (member.current || member.lag <= LEADER_LAG_TOLERANCE);

function bestMove(
  groups: readonly Group[],
  roster: readonly string[],
  movable: (group: Group) => boolean,
): LeaderMove | undefined {
  const leads = new Map(roster.map((s) => [s, 0]));
  for (const g of groups) if (g.leader && leads.has(g.leader)) leads.set(g.leader, (leads.get(g.leader) ?? 0) + 1);
  let best: { move: LeaderMove; gain: number } | undefined;
  for (const group of groups) {
    const from = group.leader;
    if (!from || !movable(group)) continue;
    const candidates = group.members.filter((m) => m.name !== from && leads.has(m.name) && canLead(m));
    for (const member of [...candidates].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const gain = (leads.get(from) ?? 0) - (leads.get(member.name) ?? 0);
      if (gain > 1 && (!best || gain > best.gain)) best = { move: { group, from, to: member.name }, gain };
    }
  }
  return best?.move;
}

/** The move to make now (stream leaders first, then consumer leaders), or none when even. */
export function planLeaderMove(
  groups: readonly Group[],
  roster: readonly string[],
  movable: (group: Group) => boolean,
): LeaderMove | undefined {
  return (
    bestMove(
      groups.filter((g) => g.kind === "stream"),
      roster,
      movable,
    ) ??
    bestMove(
      groups.filter((g) => g.kind === "consumer"),
      roster,
      movable,
    )
  );
}
