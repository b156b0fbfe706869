// containerd for the real node: its own root, state and socket under the
// run's work dir, runc from Debian, the CNI bridge from Debian's plugins with
// a config directory of its own (so a system-wide config, such as the one
// podman installs, is never picked), started in the node's network namespace.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NodeAddresses } from "./addresses.ts";

export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";
const CNI_PLUGINS = "/usr/lib/cni";
const RUNC = "/usr/sbin/runc";

export interface ContainerdPaths {
  dir: string;
  config: string;
  socket: string;
  cniConfigDir: string;
}

export function containerdPaths(nodeDir: string): ContainerdPaths {
  const dir = join(nodeDir, "containerd");
  return {
    dir,
    config: join(dir, "config.toml"),
    socket: join(dir, "containerd.sock"),
    cniConfigDir: join(dir, "cni"),
  };
}

/** The bridge network every pod joins; host-local hands out the run's pod range. */
export function cniConfig(addresses: NodeAddresses, ipamDir: string): string {
  return JSON.stringify(
    {
      cniVersion: "1.0.0",
      name: "harness",
      plugins: [
        {
          type: "bridge",
          bridge: "cni0",
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: "host-local",
            dataDir: ipamDir,
            ranges: [
              [
                {
                  subnet: addresses.podCidr,
                  rangeStart: addresses.podRangeStart,
                  rangeEnd: addresses.podRangeEnd,
                  gateway: addresses.podGateway,
                },
              ],
            ],
            routes: [{ dst: "0.0.0.0/0" }],
          },
        },
        { type: "portmap", capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

/**
 * containerd 2's configuration (version 3). `restrict_oom_score_adj`: root in
 * this VM lacks CAP_SYS_RESOURCE, so without it every pod fails with "can't get
 * final child's PID from pipe" (really: writing oom_score_adj is refused).
 */
export function containerdConfig(paths: ContainerdPaths): string {
  return `version = 3
root = "${join(paths.dir, "root")}"
state = "${join(paths.dir, "state")}"

[grpc]
  address = "${paths.socket}"

[ttrpc]
  address = "${paths.socket}.ttrpc"

[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_unprivileged_ports = true

[plugins."io.containerd.cri.v1.runtime".cni]
  bin_dirs = ["${CNI_PLUGINS}"]
  conf_dir = "${paths.cniConfigDir}"

[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "runc"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
  BinaryName = "${RUNC}"
  SystemdCgroup = false

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"

[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = "${PAUSE_IMAGE}"
`;
}

export async function writeContainerdFiles(paths: ContainerdPaths, addresses: NodeAddresses): Promise<void> {
  await mkdir(paths.cniConfigDir, { recursive: true });
  await writeFile(paths.config, containerdConfig(paths));
  await writeFile(join(paths.cniConfigDir, "10-harness.conflist"), cniConfig(addresses, join(paths.dir, "ipam")));
}
