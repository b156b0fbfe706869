// In-cluster names for the test process, answered as a cluster's DNS answers them: from the
// harness's hosts file, and "not found" at once for an in-cluster name it does not hold. Without
// this, such a name (a client of a finished test redialling a pod that is gone) goes on to the
// machine's resolver, which can take 5–10 s to say so; Node resolves on libuv's small thread pool,
// so a few of those lookups stall every other one and the monitoring ports of running servers
// seem not to answer. Other names resolve as before.
import dns from "node:dns";
import { readFileSync } from "node:fs";
import { defaultHostsFile } from "./hosts-file.ts";

const IN_CLUSTER = /\.svc(\.cluster\.local)?\.?$/i;

function hostsHold(hostsFile: string, hostname: string): boolean {
  const wanted = hostname.replace(/\.$/, "").toLowerCase();
  let text: string;
  try {
    text = readFileSync(hostsFile, "utf8");
  } catch {
    return true; // unreadable: let the system resolver decide
  }
  return text.split("\n").some((line) => {
    const names = line.replace(/#.*/, "").trim().split(/\s+/).slice(1);
    return names.some((n) => n.toLowerCase() === wanted);
  });
}

type LookupCallback = (...args: unknown[]) => void;

/** Makes `dns.lookup` (what sockets and fetch use) answer unknown in-cluster names at once. */
export function installClusterDns(hostsFile = defaultHostsFile): void {
  const system = dns.lookup as unknown as (...args: unknown[]) => void;
  const lookup = (hostname: unknown, options: unknown, callback?: unknown): void => {
    const done = (typeof options === "function" ? options : callback) as LookupCallback;
    if (typeof hostname !== "string" || !IN_CLUSTER.test(hostname) || hostsHold(hostsFile, hostname)) {
      system.call(dns, hostname, options, callback);
      return;
    }
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: "ENOTFOUND",
      syscall: "getaddrinfo",
      hostname,
    });
    process.nextTick(done, error);
  };
  (dns as { lookup: unknown }).lookup = lookup;
}
