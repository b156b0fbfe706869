// A network namespace per pod for programs that bind fixed ports on every
// address (Knative's Go commands listen on ":8080", ":9090", ...), so that
// several such pods run side by side as they would in a cluster.
//
// Layout, for the run's pod network prefix N ("10.A.B"):
//   host side:  veth v<run><n> with address N.1/32 (the same gateway address on
//               every pod's veth) and a route N.<n>/32 to it
//   pod side:   eth0 with N.<n>/32, a route to N.1 and the default route via N.1
// The host forwards between veths (ip_forward), so pods reach each other; they
// reach Services through the service proxy, whose cluster IPs live on the
// host's loopback device.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

async function ip(...args: string[]): Promise<void> {
  await run("ip", args);
}

/** Names of a pod's namespace and host-side veth, unique per run and address. */
export function netnsNames(runId: string, podIp: string): { netns: string; hostVeth: string; podVeth: string } {
  const n = podIp.slice(podIp.lastIndexOf(".") + 1);
  return { netns: `harness-${runId}-${n}`, hostVeth: `v${runId}h${n}`, podVeth: `v${runId}p${n}` };
}

/** Creates the pod's namespace and link; an existing one (a restarted kubelet) is replaced. */
export async function createPodNetwork(runId: string, podIp: string, gateway: string): Promise<string> {
  const { netns, hostVeth, podVeth } = netnsNames(runId, podIp);
  await deletePodNetwork(runId, podIp);
  await run("sysctl", ["-q", "-w", "net.ipv4.ip_forward=1"]).catch(() => undefined);
  await ip("netns", "add", netns);
  await ip("link", "add", hostVeth, "type", "veth", "peer", "name", podVeth);
  await ip("link", "set", podVeth, "netns", netns);
  await ip("addr", "add", `${gateway}/32`, "dev", hostVeth);
  await ip("link", "set", hostVeth, "up");
  await ip("route", "add", `${podIp}/32`, "dev", hostVeth);
  const inPod = (...args: string[]): Promise<void> => ip("-n", netns, ...args);
  await inPod("link", "set", podVeth, "name", "eth0");
  await inPod("addr", "add", `${podIp}/32`, "dev", "eth0");
  await inPod("link", "set", "eth0", "up");
  await inPod("link", "set", "lo", "up");
  await inPod("route", "add", `${gateway}/32`, "dev", "eth0");
  await inPod("route", "add", "default", "via", gateway, "dev", "eth0");
  return netns;
}

/** Removes the pod's namespace and veth (deleting one end removes both); missing ones are fine. */
export async function deletePodNetwork(runId: string, podIp: string): Promise<void> {
  const { netns, hostVeth } = netnsNames(runId, podIp);
  await ip("link", "del", hostVeth).catch(() => undefined);
  await ip("netns", "del", netns).catch(() => undefined);
}

/** Removes every namespace of a run (teardown after a kubelet crash). */
export async function deleteRunNetworks(runId: string): Promise<void> {
  const { stdout } = await run("ip", ["netns", "list"]).catch(() => ({ stdout: "" }));
  const prefix = `harness-${runId}-`;
  for (const line of stdout.split("\n")) {
    const name = line.split(" ")[0] ?? "";
    if (!name.startsWith(prefix)) continue;
    await deletePodNetwork(runId, `0.0.0.${name.slice(prefix.length)}`);
  }
}

/** Where a container finds its service account's token, CA and namespace. */
export const SERVICE_ACCOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * argv that runs `command` inside the pod's namespace with the service-account
 * files of `serviceAccountDir` at SERVICE_ACCOUNT_PATH. `ip netns exec` gives
 * the process a mount namespace of its own whose mounts do not propagate back,
 * so the bind mount is seen by this process alone (the mount point is made on
 * the host, empty, if missing).
 */
export function inNetnsWithServiceAccount(
  netns: string,
  serviceAccountDir: string,
  command: string,
  args: string[],
): { command: string; args: string[] } {
  const script = 'mkdir -p "$1" && mount --bind "$0" "$1" && shift && exec "$@"';
  return inNetns(netns, "sh", ["-c", script, serviceAccountDir, SERVICE_ACCOUNT_PATH, command, ...args]);
}

/** argv that runs `command` inside the pod's namespace. */
export function inNetns(netns: string, command: string, args: string[]): { command: string; args: string[] } {
  return { command: "ip", args: ["netns", "exec", netns, command, ...args] };
}
