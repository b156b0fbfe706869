// The node's own network namespace, as kind gives each node a container:
// containerd (and so the CNI bridge and every pod), kube-proxy's iptables
// rules, the kubelet and CoreDNS live in it, so two runs' nodes on one machine
// never see each other's rules. A veth pair links it to the host, which
// routes the run's pod and service addresses to the node; the node's default
// route goes back to the host, where the API server listens.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { NodeAddresses } from "./addresses.ts";

const run = promisify(execFile);

async function ip(...args: string[]): Promise<void> {
  await run("ip", args);
}

export interface NodeNetwork {
  /** Name under /run/netns. */
  netns: string;
  /** Path to enter it with `nsenter --net=`. */
  path: string;
  hostVeth: string;
}

export function nodeNetworkNames(runId: string): NodeNetwork {
  const netns = `node-${runId}`;
  return { netns, path: `/run/netns/${netns}`, hostVeth: `n${runId}` };
}

/** Creates the namespace, the link and the host's routes; a left-over one of the same run is replaced. */
export async function createNodeNetwork(runId: string, addresses: NodeAddresses): Promise<NodeNetwork> {
  const names = nodeNetworkNames(runId);
  await deleteNodeNetwork(runId);
  const { netns, hostVeth } = names;
  const link = `/${addresses.linkPrefixLength}`;
  await run("sysctl", ["-q", "-w", "net.ipv4.ip_forward=1"]);
  await ip("netns", "add", netns);
  await ip("link", "add", hostVeth, "type", "veth", "peer", "name", "eth0", "netns", netns);
  await ip("addr", "add", `${addresses.hostLinkIp}${link}`, "dev", hostVeth);
  await ip("link", "set", hostVeth, "up");
  const inNode = (...args: string[]): Promise<void> => ip("-n", netns, ...args);
  await inNode("addr", "add", `${addresses.nodeIp}${link}`, "dev", "eth0");
  await inNode("link", "set", "lo", "up");
  await inNode("link", "set", "eth0", "up");
  await inNode("route", "add", "default", "via", addresses.hostLinkIp, "dev", "eth0");
  await ip("route", "add", addresses.routedToNode, "via", addresses.nodeIp, "dev", hostVeth);
  // Forwarding inside the node (pod to pod across the bridge, pod to host) and
  // bridged traffic through iptables, as kube-proxy expects.
  for (const setting of ["net.ipv4.ip_forward=1", "net.bridge.bridge-nf-call-iptables=1"]) {
    await run("ip", ["netns", "exec", netns, "sysctl", "-q", "-w", setting]);
  }
  return names;
}

/** Removes the namespace and the link (the routes go with the link); missing ones are fine. */
export async function deleteNodeNetwork(runId: string): Promise<void> {
  const { netns, hostVeth } = nodeNetworkNames(runId);
  await ip("link", "del", hostVeth).catch(() => undefined);
  await ip("netns", "del", netns).catch(() => undefined);
}

/** argv that runs `command` in the node's network namespace and nothing else (mounts stay the host's). */
export function inNodeNetwork(
  network: NodeNetwork,
  command: string,
  args: string[],
): { command: string; args: string[] } {
  return { command: "nsenter", args: [`--net=${network.path}`, "--", command, ...args] };
}
