// The kubelet's configuration: containerd over CRI, cgroupfs under a cgroup of
// the run's own (so two runs' pods never share one), x509 and webhook
// authentication with webhook authorization as a production node has, a
// serving certificate the API server verifies, and the node's CoreDNS as the
// pods' DNS server.
import { stringify } from "yaml";
import type { NodeAddresses } from "./addresses.ts";

export interface KubeletConfigInput {
  runId: string;
  addresses: NodeAddresses;
  containerdSocket: string;
  clientCaFile: string;
  servingCert: { cert: string; key: string };
  podLogsDir: string;
}

export function kubeletCgroupRoot(runId: string): string {
  return `/harness-${runId}`;
}

export function kubeletConfig(input: KubeletConfigInput): string {
  return stringify({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: input.clientCaFile },
    },
    authorization: { mode: "Webhook" },
    address: input.addresses.nodeIp,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: 10248,
    podLogsDir: input.podLogsDir,
    tlsCertFile: input.servingCert.cert,
    tlsPrivateKeyFile: input.servingCert.key,
    containerRuntimeEndpoint: `unix://${input.containerdSocket}`,
    cgroupDriver: "cgroupfs",
    cgroupRoot: kubeletCgroupRoot(input.runId),
    // This machine has cgroups v1 only; 1.35 refuses it unless told.
    failCgroupV1: false,
    failSwapOn: false,
    clusterDNS: [input.addresses.nodeIp],
    clusterDomain: "cluster.local",
    podCIDR: input.addresses.podCidr,
    serializeImagePulls: false,
    // Images are imported, never pulled: garbage collection must not remove them.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      "memory.available": "100Mi",
      "nodefs.available": "1%",
      "nodefs.inodesFree": "1%",
      "imagefs.available": "1%",
    },
    // Pods are few and short-lived in tests; a quick status loop makes Ready prompt.
    syncFrequency: "10s",
    nodeStatusReportFrequency: "10s",
    shutdownGracePeriod: "0s",
  });
}
