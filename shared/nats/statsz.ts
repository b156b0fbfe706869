// What `$SYS.REQ.SERVER.PING.STATSZ` answers say about who is up: the servers that answered, and
// the servers their routes name.

/** The parts of a STATSZ answer read here. */
export interface StatszAnswer {
  server?: { id?: string; name?: string };
  statsz?: { routes?: { name?: string }[] };
}

/**
 * Servers an answer's routes name that did not answer themselves. A route is a live connection, so
 * such a server is up and only late: a gather that ends without it misses a server that is there.
 */
export function lateServers(answers: readonly StatszAnswer[]): string[] {
  const answered = new Set(answers.flatMap((a) => a.server?.name ?? []));
  const routed = answers.flatMap((a) => a.statsz?.routes?.flatMap((route) => route.name ?? []) ?? []);
  return [...new Set(routed.filter((name) => !answered.has(name)))].sort();
}
