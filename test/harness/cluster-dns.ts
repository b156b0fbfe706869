// In-cluster names for the test process, answered as a cluster's DNS answers them: from the
// harness's hosts file, and "not found" at once for an in-cluster name it does not hold. Without
// this, such a name (a client of a finished test redialling a pod that is gone) goes on to the
// machine's resolver, which can take 5–10 s to say so; Node resolves on libuv's small thread pool,
// so a few of those lookups stall every other one and the monitoring ports of running servers
// seem not to answer. Other names resolve as before.
//
// On the real node the answers come from the cluster's DNS itself (CoreDNS on the node), as a
// pod's resolver gets them: "demo.ns.svc" is looked up as "demo.ns.svc.cluster.local".
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

function notFound(hostname: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: "ENOTFOUND",
    syscall: "getaddrinfo",
    hostname,
  });
}

/** Makes `dns.lookup` answer in-cluster names from the cluster's DNS server at `server`. */
export function installClusterDnsServer(server: string): void {
  const system = dns.lookup as unknown as (...args: unknown[]) => void;
  const resolver = new dns.promises.Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([server]);
  const lookup = (hostname: unknown, options: unknown, callback?: unknown): void => {
    const done = (typeof options === "function" ? options : callback) as LookupCallback;
    if (typeof hostname !== "string" || !IN_CLUSTER.test(hostname)) {
      system.call(dns, hostname, options, callback);
      return;
    }
    const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all === true;
    const fqdn = hostname.replace(/\.$/, "").replace(/\.svc$/i, ".svc.cluster.local");
    resolver.resolve4(fqdn).then(
      (addresses) => {
        if (all)
          done(
            null,
            addresses.map((address) => ({ address, family: 4 })),
          );
        else done(null, addresses[0], 4);
      },
      () => done(notFound(hostname)),
    );
  };
  (dns as { lookup: unknown }).lookup = lookup;
}

/** Makes `dns.lookup` (what sockets and fetch use) answer unknown in-cluster names at once. */
export function installClusterDns(hostsFile = defaultHostsFile): void {
  const system = dns.lookup as unknown as (...args: unknown[]) => void;
  const lookup = (hostname: unknown, options: unknown, callback?: unknown): void => {
    const done = (typeof options === "function" ? options : callback) as LookupCallback;
    if (typeof hostname !== "string" || !IN_CLUSTER.test(hostname) || hostsHold(hostsFile, hostname)) {
      system.call(dns, hostname, options, callback);
      return;
    }
    process.nextTick(done, notFound(hostname));
  };
  (dns as { lookup: unknown }).lookup = lookup;
}
