// How the Raft groups sit on the servers: leaders and copies per server, and the skew of each
// (the most on one server minus the fewest on another).
import type { Snapshot } from "./snapshot.ts";

export interface ServerLoad {
  name: string;
  /** Stream and consumer groups it leads. */
  leaders: number;
  /** Stream copies it holds. */
  replicas: number;
}

export interface Load {
  servers: ServerLoad[];
  skew: { leaders: number; replicas: number };
}

const spread = (values: readonly number[]) => (values.length === 0 ? 0 : Math.max(...values) - Math.min(...values));

/** The load of every server on the roster, silent ones included (they count as holding nothing seen). */
export function loadOf(snapshot: Snapshot): Load {
  const servers = [...snapshot.roster].sort().map((name) => ({
    name,
    leaders: snapshot.groups.filter((g) => g.leader === name).length,
    replicas: snapshot.groups.filter((g) => g.kind === "stream" && g.members.some((m) => m.name === name)).length,
  }));
  return {
    servers,
    skew: { leaders: spread(servers.map((s) => s.leaders)), replicas: spread(servers.map((s) => s.replicas)) },
  };
}
