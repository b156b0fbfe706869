// A marked block of entries in /etc/hosts, one block per harness run:
//
//   # >>> nats-operator-harness <runId> <workDir>
//   127.120.7.2 nats-0.nats.ns1.svc.cluster.local nats-0.nats.ns1.svc ...
//   # <<< nats-operator-harness <runId>
//
// Writers (this run's kubelet, other runs' kubelets, teardown) serialise on a
// lock file and replace the file by atomic rename, so readers never see a
// half-written file. Blocks whose work dir no longer exists are dropped.
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
} from "node:fs";
import { dirname, join, basename } from "node:path";

const BEGIN = "# >>> nats-operator-harness ";
const END = "# <<< nats-operator-harness ";

export const defaultHostsFile = process.env["NATS_OPERATOR_HARNESS_HOSTS_FILE"] ?? "/etc/hosts";

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function withLock<T>(hostsFile: string, fn: () => T): T {
  const lock = join(dirname(hostsFile), `.${basename(hostsFile)}.nats-operator-harness.lock`);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > 5_000) rmSync(lock, { force: true }); // holder died
    } catch {
      // gone already
    }
    if (Date.now() > deadline) throw new Error(`test harness: could not lock ${hostsFile}`);
    sleepSync(10 + Math.random() * 20);
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Removes this run's block and any stale block; returns the remaining lines. */
function stripBlocks(text: string, runId: string): string[] {
  const out: string[] = [];
  let skipping = false;
  for (const line of text.split("\n")) {
    if (line.startsWith(BEGIN)) {
      const [id, workDir] = line.slice(BEGIN.length).trim().split(/\s+/);
      skipping = id === runId || (workDir !== undefined && !existsSync(workDir));
      if (!skipping) out.push(line);
      continue;
    }
    if (line.startsWith(END)) {
      if (!skipping) out.push(line);
      skipping = false;
      continue;
    }
    if (!skipping) out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

/**
 * Replaces this run's block with `entries` (ip -> names). An empty map removes
 * the block. Returns true if the file changed.
 */
export function writeHostsBlock(
  runId: string,
  workDir: string,
  entries: Map<string, string[]>,
  hostsFile: string = defaultHostsFile,
): boolean {
  return withLock(hostsFile, () => {
    const before = existsSync(hostsFile) ? readFileSync(hostsFile, "utf8") : "";
    const lines = stripBlocks(before, runId);
    const block = [...entries]
      .filter(([, names]) => names.length > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([ip, names]) => `${ip} ${names.join(" ")}`);
    if (block.length > 0) lines.push(`${BEGIN}${runId} ${workDir}`, ...block, `${END}${runId}`);
    const after = `${lines.join("\n")}\n`;
    if (after === before) return false;
    const mode = existsSync(hostsFile) ? statSync(hostsFile).mode & 0o7777 : 0o644;
    const tmp = `${hostsFile}.nats-operator-harness.${process.pid}.tmp`;
    writeFileSync(tmp, after);
    chmodSync(tmp, mode);
    try {
      renameSync(tmp, hostsFile);
    } catch (err) {
      // A bind-mounted hosts file cannot be replaced by rename: write in place.
      rmSync(tmp, { force: true });
      if ((err as NodeJS.ErrnoException).code !== "EBUSY" && (err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
      writeFileSync(hostsFile, after);
    }
    return true;
  });
}

export function removeHostsBlock(runId: string, workDir: string, hostsFile: string = defaultHostsFile): void {
  writeHostsBlock(runId, workDir, new Map(), hostsFile);
}
