// The run's cgroup (cgroups v1: one directory per hierarchy), under which the
// kubelet puts every pod. Made before the kubelet starts (it requires its
// cgroup root to exist) and emptied and removed at stop, which is also what
// stops the containers of a node whose kubelet was killed.
import { readdirSync, readFileSync, rmdirSync, statSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join } from "node:path";

const CGROUP_FS = "/sys/fs/cgroup";

function hierarchies(): string[] {
  return readdirSync(CGROUP_FS)
    .map((name) => join(CGROUP_FS, name))
    .filter((dir) => existsSync(join(dir, "cgroup.procs")) && !statSync(dir).isSymbolicLink());
}

export function createCgroup(root: string): void {
  for (const hierarchy of hierarchies()) {
    const dir = join(hierarchy, root);
    mkdirSync(dir, { recursive: true });
    // A new cpuset starts with no CPUs and no memory nodes: take the parent's.
    for (const file of ["cpuset.cpus", "cpuset.mems"]) {
      if (existsSync(join(hierarchy, file))) writeFileSync(join(dir, file), readFileSync(join(hierarchy, file)));
    }
  }
}

/** Every process in the cgroup and below, from the pids hierarchy (or the first one). */
export function processesIn(root: string): number[] {
  const hierarchy = hierarchies().find((h) => h.endsWith("/pids")) ?? hierarchies()[0];
  if (hierarchy === undefined) return [];
  const pids: number[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const line of readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n")) {
      if (line !== "") pids.push(Number(line));
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(join(dir, entry.name));
  };
  walk(join(hierarchy, root));
  return pids;
}

/** Removes the cgroup tree, deepest first; a cgroup that still has processes stays (and is reported). */
export function removeCgroup(root: string): string[] {
  const left: string[] = [];
  const remove = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) remove(join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch {
      left.push(dir);
    }
  };
  for (const hierarchy of hierarchies()) remove(join(hierarchy, root));
  return left;
}
