// The one placement move worth making (`moves.placement`): a stream copy off the server holding the
// most copies. The server picks where the copy lands (any roster server that does not hold the
// stream and carries its placement tags), so a move is made only when it pays off even if the copy
// lands on the fullest of those: the holder must keep at least two copies more than every landing.
// Moves that only might pay off are not made, so copies never travel back and forth.
import { carriesAll } from "./evacuation.ts";
import type { Group } from "./snapshot.ts";

export interface PlacementMove {
  group: Group;
  from: string;
}

/** Stream copies each roster server holds. */
export function copiesPerServer(groups: readonly Group[], roster: readonly string[]): Map<string, number> {
  const holds = new Map(roster.map((s) => [s, 0]));
  for (const g of groups)
    if (g.kind === "stream")
      for (const m of g.members) if (holds.has(m.name)) holds.set(m.name, (holds.get(m.name) ?? 0) + 1);
  return holds;
}

export function planPlacementMove(
  groups: readonly Group[],
  roster: readonly string[],
  tags: ReadonlyMap<string, readonly string[]>,
  movable: (group: Group) => boolean,
): PlacementMove | undefined {
  const holds = copiesPerServer(groups, roster);
  let best: { move: PlacementMove; worst: number } | undefined;
  for (const group of groups) {
    if (group.kind !== "stream" || !group.leader || !movable(group)) continue;
    if (group.members.some((m) => m.offline)) continue;
    const landings = roster.filter(
      (s) => !group.members.some((m) => m.name === s) && carriesAll(tags.get(s) ?? [], group.placementTags ?? []),
    );
    if (landings.length === 0) continue;
    const fullest = Math.max(...landings.map((s) => holds.get(s) ?? 0));
    for (const member of group.members) {
      if (!holds.has(member.name)) continue;
      const worst = (holds.get(member.name) ?? 0) - fullest;
      if (worst >= 2 && (!best || worst > best.worst)) best = { move: { group, from: member.name }, worst };
    }
  }
  return best?.move;
}
