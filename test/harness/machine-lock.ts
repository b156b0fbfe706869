// Machine-wide exclusive locks between harness runs, for what only one run on the machine can have
// at a time. A lock is a directory under the lock root naming the owning run's work dir (the same
// scheme as subnet.ts); it is stale, and taken over, once that work dir is gone.
//
// The Knative profile takes "knative": its Services have the same names in every run
// (`eventing-webhook.knative-eventing.svc`, `broker-ingress.knative-eventing.svc`,
// `traefik.traefik.svc`, `kubernetes.default.svc` ...), those names resolve through the machine's
// one /etc/hosts, and each run's block would point them at its own cluster IPs. Two such control
// planes at once reach each other's webhooks (whose certificates the other API server does not
// trust) and brokers. So a second one waits until the first is stopped.
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { waitFor } from "./wait.ts";

const lockRoot = join(tmpdir(), "nats-operator-harness", "locks");

function owner(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, "owner"), "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Takes the lock for `workDir` if free (or stale); true when this run holds it. */
export function tryLock(name: string, workDir: string): boolean {
  mkdirSync(lockRoot, { recursive: true });
  const dir = join(lockRoot, name);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const held = owner(dir);
    if (held === workDir) return true;
    // A holder whose work dir is gone stopped without releasing it (killed run).
    if (held !== undefined && held !== "" && !existsSync(held)) rmSync(dir, { recursive: true, force: true });
    return false;
  }
  writeFileSync(join(dir, "owner"), `${workDir}\n`);
  return true;
}

/** Waits for the lock; the error names the run that holds it. */
export async function lock(name: string, workDir: string, timeoutMs: number): Promise<void> {
  await waitFor(
    `the machine-wide "${name}" lock of the test harness (held by the run in ${owner(join(lockRoot, name)) ?? "?"})`,
    () => tryLock(name, workDir),
    { timeoutMs, intervalMs: 1_000 },
  );
}

/** Releases the lock if `workDir` holds it. */
export function unlock(name: string, workDir: string): void {
  const dir = join(lockRoot, name);
  if (owner(dir) === workDir) rmSync(dir, { recursive: true, force: true });
}
