// A program the test runs on the host, outside the cluster, that dials the cluster's Service names
// (a NATS cluster its owners run beside Kubernetes, say): on the real node it runs in a mount
// namespace of its own whose /etc/resolv.conf names the cluster's DNS server, as a machine whose
// DNS is federated with the cluster's would; elsewhere (the simulated kubelet writes the names
// into /etc/hosts) it runs as it is.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HarnessState } from "./state.ts";

export function withClusterDns(
  state: HarnessState | undefined,
  dir: string,
  command: string,
  args: string[],
): { command: string; args: string[] } {
  if (state?.clusterDns === undefined) return { command, args };
  const resolvConf = join(dir, "resolv.conf");
  writeFileSync(resolvConf, `nameserver ${state.clusterDns}\nsearch cluster.local\noptions ndots:5\n`);
  const script = 'mount --bind "$0" /etc/resolv.conf && exec "$@"';
  return {
    command: "unshare",
    args: ["--mount", "--propagation", "private", "--", "sh", "-c", script, resolvConf, command, ...args],
  };
}
