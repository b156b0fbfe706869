// Whether the NATS cluster is settled enough for a move: every server answered every JSZ page,
// the meta group has a leader, and every member of every group in scope is current. A move made
// while a member catches up could hand leadership to a server that is behind.
import { describeGroup, type Group, type Snapshot } from "./snapshot.ts";

/** Groups named in a message before "and N more". */
const listed = 5;

function groupTrouble(group: Group): string | undefined {
  const what = describeGroup(group);
  if (!group.leader) return `${what} has no leader`;
  const offline = group.members.filter((m) => m.offline).map((m) => m.name);
  if (offline.length > 0) return `${what} has ${offline.join(", ")} offline`;
  const behind = group.members.filter((m) => !m.current).map((m) => m.name);
  if (behind.length > 0) return `${what} has ${behind.join(", ")} not current`;
  return undefined;
}

/** Why no move may be made now, or undefined when the cluster is settled. */
export function unsettledBecause(snapshot: Snapshot): string | undefined {
  if (snapshot.silent.length > 0)
    return `${snapshot.silent.join(", ")} did not answer every JSZ page of NATS cluster ${snapshot.cluster}`;
  if (!snapshot.metaLeader) return `the meta group of NATS cluster ${snapshot.cluster} has no leader`;
  return groupsUnsettled(snapshot.groups);
}

/** Why the groups are not settled (leaderless, a member offline or not current), or undefined when they are. */
export function groupsUnsettled(groups: readonly Group[]): string | undefined {
  const troubles = groups.flatMap((g) => groupTrouble(g) ?? []);
  if (troubles.length === 0) return undefined;
  const more = troubles.length > listed ? ` and ${troubles.length - listed} more` : "";
  return `${troubles.slice(0, listed).join("; ")}${more}`;
}
