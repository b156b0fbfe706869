// Two runs' clusters that a test joins (a supercluster across two control planes) resolve each
// other's Service names as a platform's DNS federation would let them: this cluster's CoreDNS
// forwards the other's namespace to the other's CoreDNS. The node's routes already carry the
// traffic: every run's pod and service block is routed by the host to its node.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HarnessState } from "../state.ts";
import { nodeAddresses } from "./addresses.ts";
import { corefile, type PeerNamespace } from "./coredns.ts";

/** Makes `state`'s cluster answer names in `peer.namespace` by asking `peer.dns`. */
export async function forwardNamespace(state: HarnessState, peer: PeerNamespace): Promise<void> {
  const dir = state.realNode?.dir;
  if (dir === undefined || state.podSubnet === undefined) throw new Error("forwardNamespace needs a real node");
  const peersFile = join(dir, "dns-peers.json");
  const peers = JSON.parse(await readFile(peersFile, "utf8").catch(() => "[]")) as PeerNamespace[];
  const next = [...peers.filter((p) => p.namespace !== peer.namespace), peer];
  await writeFile(peersFile, JSON.stringify(next));
  // CoreDNS's reload plugin sees the rewritten Corefile within two seconds.
  await writeFile(
    join(dir, "Corefile"),
    corefile({ kubeconfig: join(dir, "coredns.kubeconfig"), addresses: nodeAddresses(state.podSubnet), peers: next }),
  );
}
