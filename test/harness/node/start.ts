// Starts and stops the real node of a run: containerd, the kubelet, kube-proxy,
// kube-router (NetworkPolicy) and CoreDNS in the node's network namespace,
// kube-scheduler beside the control plane, each with a client certificate of
// its own identity (the kubelet as system:node:<name> under the Node
// authorizer, kube-proxy and the scheduler as the users Kubernetes's default
// RBAC binds, CoreDNS and kube-router with ClusterRoles of their own).
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KubeConfig, CoreV1Api, KubernetesObjectApi, type KubernetesObject } from "@kubernetes/client-node";
import { issueClientCertificate, issueServingCertificate, type Certificates } from "../certs.ts";
import { writeKubeconfig } from "../kubeconfig.ts";
import { commandLine, spawnDetached, isAlive, stopPid } from "../processes.ts";
import { waitFor, errorMessage } from "../wait.ts";
import type { NodeAddresses } from "./addresses.ts";
import { createCgroup, processesIn, removeCgroup } from "./cgroups.ts";
import { containerdPaths, writeContainerdFiles, PAUSE_IMAGE } from "./containerd.ts";
import { corefile, corednsRbac, COREDNS_USER } from "./coredns.ts";
import { kubeletCgroupRoot, kubeletConfig } from "./kubelet.ts";
import { kubeProxyConfig } from "./kube-proxy.ts";
import {
  hostTrafficRule,
  kubeRouterArgs,
  kubeRouterRbac,
  KUBE_ROUTER_FORWARD_CHAIN,
  KUBE_ROUTER_USER,
} from "./kube-router.ts";
import { inNodeNetwork, type NodeNetwork } from "./network.ts";
import { writeScratchImage, type ScratchImage } from "./oci-image.ts";
import { storageClass } from "./storage.ts";

const run = promisify(execFile);

export interface RealNodeInput {
  runId: string;
  nodeName: string;
  /** Where the node keeps its files (containerd's root, the kubelet's pods, configs). */
  dir: string;
  logDir: string;
  /** test/infra/build-node.sh's bin directory. */
  bin: string;
  certs: Certificates;
  apiPort: number;
  addresses: NodeAddresses;
  network: NodeNetwork;
  adminKubeconfig: string;
  /** Imported into containerd before the kubelet starts, beside the pause image. */
  images: ScratchImage[];
  /** Records a started process so the harness stops it. */
  track: (name: string, pid: number, expect: string) => void;
  note: (message: string) => void;
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

export async function startRealNode(input: RealNodeInput): Promise<void> {
  const { dir, logDir, bin, certs, addresses, network } = input;
  await mkdir(dir, { recursive: true });
  const inCluster = `https://${addresses.hostLinkIp}:${input.apiPort}`;
  const started = (name: string, command: string, args: string[], inNode: boolean): number => {
    const argv = inNode ? inNodeNetwork(network, command, args) : { command, args };
    const pid = spawnDetached(argv.command, argv.args, { logFile: join(logDir, `${name}.log`), cwd: dir });
    input.track(name, pid, command);
    return pid;
  };
  const kubeconfigFor = async (name: string, user: string, groups: string[], server: string): Promise<string> => {
    const client = await issueClientCertificate(certs, name, { user, groups });
    const path = join(dir, `${name}.kubeconfig`);
    await writeKubeconfig(path, server, certs, client);
    return path;
  };
  const healthy = async (name: string, pid: number, check: () => Promise<boolean>, timeoutMs = 60_000) => {
    await waitFor(
      `${name} to become ready (log: ${join(logDir, `${name}.log`)})`,
      async () => {
        if (!isAlive(pid)) throw new Error(`${name} exited:\n${tail(join(logDir, `${name}.log`))}`);
        return check();
      },
      { timeoutMs, intervalMs: 200 },
    ).catch((err: unknown) => {
      throw new Error(`${errorMessage(err)}\n--- ${name}.log ---\n${tail(join(logDir, `${name}.log`))}`);
    });
  };

  // containerd
  const containerd = containerdPaths(dir);
  await writeContainerdFiles(containerd, addresses);
  const containerdPid = started("containerd", join(bin, "containerd"), ["--config", containerd.config], true);
  const ctr = (...args: string[]) =>
    run(join(bin, "ctr"), ["--address", containerd.socket, "--namespace", "k8s.io", ...args]);
  await healthy("containerd", containerdPid, async () => existsSync(containerd.socket) && (await ctr("version"), true));
  input.note("containerd ready");

  // images: the sandbox's pause and what the tests run, imported with no registry
  const imagesDir = join(dir, "images");
  await mkdir(imagesDir, { recursive: true });
  const pause: ScratchImage = {
    name: PAUSE_IMAGE,
    files: [{ path: "pause", source: join(bin, "pause") }],
    entrypoint: ["/pause"],
    user: "65535:65535",
  };
  for (const [i, image] of [pause, ...input.images].entries()) {
    const archive = join(imagesDir, `${i}.tar`);
    await writeScratchImage(image, archive);
    await ctr("images", "import", archive);
  }
  input.note(`imported ${input.images.length + 1} images`);

  // kubelet
  createCgroup(kubeletCgroupRoot(input.runId));
  const kubeletServing = await issueServingCertificate(certs, "kubelet-serving", {
    dns: [input.nodeName],
    ips: [addresses.nodeIp],
  });
  const kubeletKubeconfig = await kubeconfigFor(
    "kubelet-client",
    `system:node:${input.nodeName}`,
    ["system:nodes"],
    inCluster,
  );
  const kubeletConfigFile = join(dir, "kubelet.yaml");
  await writeFile(
    kubeletConfigFile,
    kubeletConfig({
      runId: input.runId,
      addresses,
      containerdSocket: containerd.socket,
      clientCaFile: certs.clientCa,
      servingCert: kubeletServing,
      podLogsDir: join(dir, "pod-logs"),
    }),
  );
  const kubeletPid = started(
    "kubelet",
    join(bin, "kubelet"),
    [
      `--config=${kubeletConfigFile}`,
      `--kubeconfig=${kubeletKubeconfig}`,
      `--root-dir=${join(dir, "kubelet")}`,
      `--hostname-override=${input.nodeName}`,
      `--node-ip=${addresses.nodeIp}`,
      "--v=1",
    ],
    true,
  );
  const kc = new KubeConfig();
  kc.loadFromFile(input.adminKubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  await healthy("kubelet", kubeletPid, async () => {
    const node = await core.readNode({ name: input.nodeName });
    return (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
  });
  input.note("kubelet ready");

  // kube-proxy
  const proxyConfig = join(dir, "kube-proxy.yaml");
  await writeFile(
    proxyConfig,
    kubeProxyConfig({
      kubeconfig: await kubeconfigFor("kube-proxy", "system:kube-proxy", [], inCluster),
      nodeName: input.nodeName,
      addresses,
    }),
  );
  started("kube-proxy", join(bin, "kube-proxy"), [`--config=${proxyConfig}`, "--v=1"], true);

  // kube-scheduler, beside the control plane
  const schedulerKubeconfig = await kubeconfigFor(
    "kube-scheduler",
    "system:kube-scheduler",
    [],
    `https://127.0.0.1:${input.apiPort}`,
  );
  started(
    "kube-scheduler",
    join(bin, "kube-scheduler"),
    [
      `--kubeconfig=${schedulerKubeconfig}`,
      `--authentication-kubeconfig=${schedulerKubeconfig}`,
      `--authorization-kubeconfig=${schedulerKubeconfig}`,
      "--leader-elect=false",
      "--secure-port=0",
      "--v=1",
    ],
    false,
  );

  // kube-router's firewall controller: NetworkPolicy
  const objects = KubernetesObjectApi.makeApiClient(kc);
  for (const object of kubeRouterRbac) await objects.create(object as KubernetesObject);
  const iptables = (...args: string[]) => {
    const argv = inNodeNetwork(network, "iptables", args);
    return run(argv.command, argv.args);
  };
  await iptables(...hostTrafficRule(addresses));
  const kubeRouterPid = started(
    "kube-router",
    join(bin, "kube-router"),
    kubeRouterArgs({
      kubeconfig: await kubeconfigFor("kube-router", KUBE_ROUTER_USER, [], inCluster),
      nodeName: input.nodeName,
      addresses,
    }),
    true,
  );

  // CoreDNS
  for (const object of corednsRbac) await objects.create(object as KubernetesObject);
  const corednsFile = join(dir, "Corefile");
  // dns-peers.ts rewrites the Corefile with the kubeconfig at this path.
  await writeFile(
    corednsFile,
    corefile({ kubeconfig: await kubeconfigFor("coredns", COREDNS_USER, [], inCluster), addresses }),
  );
  started("coredns", join(bin, "coredns"), ["-conf", corednsFile], true);

  // storage: the default class and its provisioner
  await objects.create(storageClass as KubernetesObject);
  const provisioner = fileURLToPath(new URL("./provisioner-main.ts", import.meta.url));
  const volumesDir = join(dir, "volumes");
  await mkdir(volumesDir, { recursive: true });
  started("provisioner", process.execPath, [provisioner, input.adminKubeconfig, input.nodeName, volumesDir], false);
  // Last, so that its first sync overlaps the rest of the start.
  await healthy("kube-router", kubeRouterPid, () =>
    iptables("-S", KUBE_ROUTER_FORWARD_CHAIN).then(
      () => true,
      () => false,
    ),
  );
  input.note("kube-proxy, kube-router, kube-scheduler, coredns and the storage provisioner started");
}

/**
 * After the node's processes are stopped: kills what still runs in the run's
 * cgroup (containers whose kubelet was killed) and their shims, unmounts what
 * the kubelet and containerd mounted under the node's directory and removes
 * the cgroup.
 */
export async function cleanUpRealNode(runId: string, dir: string): Promise<void> {
  const socket = containerdPaths(dir).socket;
  const shims = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => commandLine(pid)?.includes(socket) === true);
  const root = kubeletCgroupRoot(runId);
  await Promise.all([...shims, ...processesIn(root)].map((pid) => stopPid(pid, { timeoutMs: 2_000 })));
  const mounts = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((point) => point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) await run("umount", ["-l", point]).catch(() => undefined);
  removeCgroup(root);
}
