// Machine-wide reservation of a 127.A.B.0/24 block for one harness run's pod
// addresses, so that harnesses started from other worktrees on the same
// machine never hand out the same pod IP. A reservation is a directory under
// the lock root naming the owning run's work dir; it is stale once that work
// dir is gone.
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const lockRoot = join(tmpdir(), "nats-operator-harness", "subnets");

/** Reserves and returns a prefix "127.A.B" (pods get 127.A.B.2 ... 127.A.B.254). */
export function reserveSubnet(workDir: string): string {
  mkdirSync(lockRoot, { recursive: true });
  for (let attempt = 0; attempt < 500; attempt++) {
    const prefix = `127.${100 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 256)}`;
    const dir = join(lockRoot, prefix);
    try {
      mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let owner: string;
      try {
        owner = readFileSync(join(dir, "owner"), "utf8").trim();
      } catch {
        continue; // being created right now
      }
      if (owner !== "" && !existsSync(owner)) rmSync(dir, { recursive: true, force: true });
      continue;
    }
    writeFileSync(join(dir, "owner"), `${workDir}\n`);
    return prefix;
  }
  throw new Error("test harness: no free 127.A.B.0/24 block for pod addresses");
}

export function releaseSubnet(prefix: string): void {
  rmSync(join(lockRoot, prefix), { recursive: true, force: true });
}
