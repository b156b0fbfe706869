// The placement move worth making (`moves.placement`): a stream copy off a server holding more
// copies than another. The server, not we, picks where the copy lands (any roster server that does
// not hold the stream and carries its placement tags; nats-server prefers free storage, so the
// landing cannot be foretold), so moves come in two kinds:
// - sure: the holder keeps at least two copies more than every landing, so the move evens the
//   servers wherever the copy lands;
// - unsure: the holder keeps exactly one more than the fullest landing and two more than the
//   emptiest, so the move evens them only if the copy lands well, and otherwise swaps the counts.
// Sure moves alone stop at a skew of 2 (3/2/1 stays put); unsure ones take it to 1 when the server
// lands copies well (3/3/1 still stays put: every copy could land on the other 3). Neither ever
// raises the unevenness (the sum of each server's copies squared): a sure move lowers it, an
// unsure one lowers it or leaves it as it was. So that swaps cannot go on forever, a stream moved
// by an unsure move is not moved that way again until the unevenness drops to a new lowest; that
// memory lives in the balancer's status (decide is pure), and is bounded by the streams in scope.
import type { NatsSystemBalancerStatus } from "./resource.ts";
import { carriesAll } from "../evacuation/resource.ts";
import type { Group } from "../leaders/snapshot.ts";

/** What placement moves remember between passes (`status.placement`). */
export type PlacementMemory = NonNullable<NatsSystemBalancerStatus["placement"]>;
export type TriedStream = PlacementMemory["tried"][number];

export interface PlacementMove {
  group: Group;
  from: string;
  /** Whether the move evens the servers wherever the copy lands; an unsure one only if it lands well. */
  sure: boolean;
}

/** Stream copies each roster server holds. */
export function copiesPerServer(groups: readonly Group[], roster: readonly string[]): Map<string, number> {
  const holds = new Map(roster.map((s) => [s, 0]));
  for (const g of groups)
    if (g.kind === "stream")
      for (const m of g.members) if (holds.has(m.name)) holds.set(m.name, (holds.get(m.name) ?? 0) + 1);
  return holds;
}

/** The sum of each server's copies squared: lowest when the copies are spread evenly. */
export function unevennessOf(holds: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const n of holds.values()) sum += n * n;
  return sum;
}

const isStream = (ref: TriedStream, g: Group) =>
  g.kind === "stream" && g.account === ref.account && g.stream === ref.stream;

/**
 * The memory as this observation leaves it. A new lowest unevenness starts it over, and so does
 * another count of copies or servers (unevenness measured over another pool cannot be compared);
 * streams no longer in scope are forgotten.
 */
export function recallPlacement(
  previous: PlacementMemory | undefined,
  groups: readonly Group[],
  roster: readonly string[],
  inScope: (group: Group) => boolean,
): PlacementMemory {
  const holds = copiesPerServer(groups, roster);
  const unevenness = unevennessOf(holds);
  const copies = [...holds.values()].reduce((a, b) => a + b, 0);
  const servers = roster.length;
  if (!previous || previous.copies !== copies || previous.servers !== servers || unevenness < previous.lowestUnevenness)
    return { lowestUnevenness: unevenness, copies, servers, tried: [] };
  const tried = (previous.tried ?? []).filter((t) => groups.some((g) => isStream(t, g) && inScope(g)));
  return { ...previous, tried };
}

/** The memory once `move` is requested: an unsure move's stream is not tried again until a new lowest. */
export function rememberMove(memory: PlacementMemory, move: PlacementMove): PlacementMemory {
  if (move.sure) return memory;
  return { ...memory, tried: [...memory.tried, { account: move.group.account, stream: move.group.stream }] };
}

/**
 * The best move: the sure move with the largest worst-case gain, else the unsure move with the
 * largest best-case gain whose stream is not in `tried`.
 */
export function planPlacementMove(
  groups: readonly Group[],
  roster: readonly string[],
  tags: ReadonlyMap<string, readonly string[]>,
  movable: (group: Group) => boolean,
  tried: readonly TriedStream[] = [],
): PlacementMove | undefined {
  const holds = copiesPerServer(groups, roster);
  let sure: { move: PlacementMove; worst: number } | undefined;
  let unsure: { move: PlacementMove; most: number } | undefined;
  for (const group of groups) {
    if (group.kind !== "stream" || !group.leader || !movable(group)) continue;
    if (group.members.some((m) => m.offline)) continue;
    const landings = roster.filter(
      (s) => !group.members.some((m) => m.name === s) && carriesAll(tags.get(s) ?? [], group.placementTags ?? []),
    );
    if (landings.length === 0) continue;
    const landed = landings.map((s) => holds.get(s) ?? 0);
    const fullest = Math.max(...landed);
    const emptiest = Math.min(...landed);
    const triedBefore = tried.some((t) => isStream(t, group));
    for (const member of group.members) {
      if (!holds.has(member.name)) continue;
      const held = holds.get(member.name) ?? 0;
      const worst = held - fullest;
      const most = held - emptiest;
      if (worst >= 2) {
        if (!sure || worst > sure.worst) sure = { move: { group, from: member.name, sure: true }, worst };
      } else if (worst === 1 && most >= 2 && !triedBefore) {
        if (!unsure || most > unsure.most) unsure = { move: { group, from: member.name, sure: false }, most };
      }
    }
  }
  return sure?.move ?? unsure?.move;
}
