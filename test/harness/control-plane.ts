// Starts and stops a local control plane: etcd + kube-apiserver, in the
// "cluster" profile kube-controller-manager + the local kubelet, and in the
// "knative" profile Knative Eventing on top (pods in network namespaces, a
// service proxy for cluster IPs). With `certManager`, cert-manager's controller runs too.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { KubeConfig, CoreV1Api } from "@kubernetes/client-node";
import {
  ensureBinaries,
  ensureCertManager,
  ensureKnative,
  ensureServing,
  ensureNode,
  checkNatsServer,
  type Binaries,
} from "./binaries.ts";
import { startCertManager } from "./cert-manager.ts";
import { installKnativeEventing } from "./knative.ts";
import { installKnativeServing } from "./serving.ts";
import { deleteRunNetworks } from "./kubelet/netns.ts";
import { nodeAddresses, type NodeAddresses } from "./node/addresses.ts";
import { createNodeNetwork, deleteNodeNetwork, type NodeNetwork } from "./node/network.ts";
import { cleanUpRealNode, startRealNode } from "./node/start.ts";
import { exporterImages, natsServerImages } from "./node/images.ts";
import { generateCertificates, issueClientCertificate, type Certificates } from "./certs.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { freePorts } from "./ports.ts";
import { spawnDetached, stopPid, isAlive } from "./processes.ts";
import { httpGet } from "./http-check.ts";
import { installCrds, loadCrdFiles } from "./crds.ts";
import { waitFor, errorMessage } from "./wait.ts";
import { reserveSubnet, releaseSubnet } from "./subnet.ts";
import { lock, unlock } from "./machine-lock.ts";
import { removeHostsBlock, defaultHostsFile } from "./hosts-file.ts";
import { repoRoot } from "./paths.ts";
import type { HarnessState, ManagedProcess, Profile } from "./state.ts";

export const NODE_NAME = "harness-node";

export interface StartOptions {
  profile?: Profile;
  /**
   * Directory of CRD manifests to install (default: $NATS_OPERATOR_HARNESS_CRDS,
   * else <repo>/crds; "none" installs nothing).
   */
  crdDir?: string;
  /** Build progress and phase messages (default: stderr). */
  log?: (line: string) => void;
  /** Prebuilt binaries; default: run test/infra/build.sh. */
  binaries?: Binaries;
  /** Install cert-manager's CRDs and run its controller (test/harness/cert-manager.ts). */
  certManager?: boolean;
  /**
   * "real": the cluster profile on a real node (test/harness/node/): containerd,
   * the kubelet, kube-proxy, kube-scheduler, CoreDNS and kube-router (NetworkPolicy), instead of the
   * simulated kubelet.
   */
  node?: "simulated" | "real";
  /**
   * The Knative profile with Knative Serving and Traefik as well as Eventing
   * (default true); false saves their start-up where functions run as Deployments.
   */
  serving?: boolean;
}

/**
 * With Serving, the API server keeps an audit log of the requests made by the
 * service accounts of the namespace `nats-operator` (one line per request, at
 * Metadata level, nothing else), so the idle benchmark can count what the
 * installed operator asks of the API server.
 */
export const OPERATOR_AUDIT_LOG = "operator-audit.log";
const OPERATOR_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    userGroups: ["system:serviceaccounts:nats-operator"]
  - level: None
`;

async function operatorAuditFlags(workDir: string, logDir: string): Promise<string[]> {
  const policy = join(workDir, "operator-audit-policy.yaml");
  await writeFile(policy, OPERATOR_AUDIT_POLICY);
  return [`--audit-policy-file=${policy}`, `--audit-log-path=${join(logDir, OPERATOR_AUDIT_LOG)}`];
}

function tail(file: string, lines = 25): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function waitHealthy(
  name: string,
  pid: number,
  logFile: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    `${name} to become healthy (log: ${logFile})`,
    async () => {
      if (!isAlive(pid)) throw new Error(`${name} exited; last lines of ${logFile}:\n${tail(logFile)}`);
      return await check();
    },
    { timeoutMs, intervalMs: 200 },
  ).catch((err: unknown) => {
    throw new Error(`${errorMessage(err)}\n--- ${logFile} ---\n${tail(logFile)}`);
  });
}

/**
 * Starts a control plane; on failure stops whatever was started (the work dir
 * is kept for its logs). A start that lost a race for one of its free ports
 * ("address already in use") is retried once with new ports.
 */
export async function startControlPlane(options: StartOptions = {}): Promise<HarnessState> {
  try {
    return await startOnce(options);
  } catch (err) {
    if (!/address already in use/i.test(errorMessage(err))) throw err;
    (options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(
      `test harness: port clash, retrying: ${errorMessage(err).split("\n")[0] ?? ""}`,
    );
    return startOnce(options);
  }
}

async function startOnce(options: StartOptions): Promise<HarnessState> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const profile = options.profile ?? "cluster";
  const t0 = Date.now();
  const timings: Record<string, number> = {};
  const mark = (phase: string): void => {
    timings[phase] = Date.now() - t0;
  };

  const bins = options.binaries ?? (await ensureBinaries(log));
  const knativeDir = profile === "knative" ? await ensureKnative(log) : undefined;
  const servingDir = profile === "knative" && options.serving !== false ? await ensureServing(log) : undefined;
  const certManagerDir = options.certManager === true ? await ensureCertManager(log) : undefined;
  const realNode = options.node === "real" && profile !== "apiserver";
  if (realNode && profile === "knative") throw new Error("the real node runs the cluster profile only, so far");
  const nodeBin = realNode ? await ensureNode(log) : undefined;
  const natsVersion = await checkNatsServer(bins.natsServer);
  mark("binaries");
  const t1 = Date.now(); // control-plane start time is measured from here
  const workDir = await mkdtemp(join(tmpdir(), "nats-operator-harness-"));
  const runId = randomBytes(4).toString("hex");
  const logDir = join(workDir, "logs");
  await mkdir(logDir);
  const harnessLog = join(logDir, "harness.log");
  const note = (msg: string): void => appendFileSync(harnessLog, `${new Date().toISOString()} ${msg}\n`);
  note(`run ${runId} profile ${profile} bin ${bins.dir} nats-server ${natsVersion}`);

  const state: HarnessState = {
    version: 1,
    runId,
    profile,
    workDir,
    kubeconfig: join(workDir, "kubeconfig"),
    server: "",
    binDir: bins.dir,
    processes: [],
    startedAt: new Date().toISOString(),
    timings,
  };
  const track = (name: string, pid: number, expect: string): ManagedProcess => {
    const p = { name, pid, expect };
    state.processes.push(p);
    return p;
  };

  const withPods = profile !== "apiserver";
  try {
    // One Knative control plane on the machine at a time: their Services' names are the same in
    // every run and resolve through the one /etc/hosts (machine-lock.ts).
    if (knativeDir !== undefined) {
      note("waiting for the machine-wide knative lock");
      await lock("knative", workDir, 30 * 60_000);
      mark("knative-lock");
    }
    if (withPods) state.podSubnet = reserveSubnet(workDir);
    // The Knative profile gives pods in network namespaces 10.A.B.2-127 and
    // Services 10.A.B.128/25, both from the run's reserved 127.A.B block, so
    // runs side by side never share an address.
    const podNetwork = knativeDir !== undefined ? `10${(state.podSubnet ?? "").slice(3)}` : undefined;
    let node: { addresses: NodeAddresses; network: NodeNetwork } | undefined;
    if (realNode) {
      const addresses = nodeAddresses(state.podSubnet ?? "");
      state.realNode = { dir: join(workDir, "node"), bin: nodeBin ?? "", hostLinkIp: addresses.hostLinkIp };
      state.clusterDns = addresses.nodeIp;
      node = { addresses, network: await createNodeNetwork(runId, addresses) };
      mark("node-network");
    }
    const serviceRange =
      node !== undefined
        ? node.addresses.serviceRange
        : podNetwork !== undefined
          ? `${podNetwork}.128/25`
          : "10.0.0.0/24";
    const [etcdPort, etcdPeerPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const certs: Certificates = await generateCertificates(
      await mkdirp(join(workDir, "pki")),
      node !== undefined ? [node.addresses.hostLinkIp, node.addresses.kubernetesServiceIp] : [],
    );
    const kubeletClient =
      node !== undefined
        ? await issueClientCertificate(certs, "apiserver-kubelet-client", {
            user: "kube-apiserver-kubelet-client",
            groups: ["system:masters"],
          })
        : undefined;
    mark("certificates");

    // etcd
    const etcdLog = join(logDir, "etcd.log");
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const etcd = track(
      "etcd",
      spawnDetached(
        bins.etcd,
        [
          `--name=harness`,
          `--data-dir=${join(workDir, "etcd")}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-cluster=harness=http://127.0.0.1:${etcdPeerPort}`,
          `--unsafe-no-fsync=true`,
          `--log-level=warn`,
        ],
        { logFile: etcdLog, cwd: workDir },
      ),
      bins.etcd,
    );
    await waitHealthy(
      "etcd",
      etcd.pid,
      etcdLog,
      async () => {
        const r = await httpGet(`${etcdUrl}/health`);
        return r.status === 200 && r.body.includes('"health":"true"');
      },
      30_000,
    );
    mark("etcd");

    // kube-apiserver
    const apiLog = join(logDir, "kube-apiserver.log");
    state.server = `https://127.0.0.1:${apiPort}`;
    const api = track(
      "kube-apiserver",
      spawnDetached(
        bins.kubeApiserver,
        [
          `--etcd-servers=${etcdUrl}`,
          `--cert-dir=${certs.dir}`,
          `--tls-cert-file=${certs.servingCert}`,
          `--tls-private-key-file=${certs.servingKey}`,
          `--secure-port=${apiPort}`,
          // The real node reaches the API server over its link, and so do pods, through the
          // `kubernetes` Service whose endpoint the API server keeps.
          ...(node !== undefined && kubeletClient !== undefined
            ? [
                `--bind-address=0.0.0.0`,
                `--advertise-address=${node.addresses.hostLinkIp}`,
                `--kubelet-client-certificate=${kubeletClient.cert}`,
                `--kubelet-client-key=${kubeletClient.key}`,
                `--kubelet-certificate-authority=${certs.servingCa}`,
                `--kubelet-preferred-address-types=InternalIP`,
                `--authorization-mode=Node,RBAC`,
                `--enable-admission-plugins=NodeRestriction`,
              ]
            : [
                `--bind-address=127.0.0.1`,
                `--advertise-address=127.0.0.1`,
                `--endpoint-reconciler-type=none`,
                `--authorization-mode=RBAC`,
              ]),
          `--service-cluster-ip-range=${serviceRange}`,
          `--service-account-issuer=${state.server}/`,
          // Knative Eventing with OIDC on verifies tokens against the keys the discovery document
          // names; pods reach the API server as kubernetes.default.svc, not at the host's 127.0.0.1.
          ...(profile === "knative"
            ? ["--service-account-jwks-uri=https://kubernetes.default.svc/openid/v1/jwks"]
            : []),
          `--service-account-key-file=${certs.saPub}`,
          `--service-account-signing-key-file=${certs.saKey}`,
          `--client-ca-file=${certs.clientCa}`,
          `--disable-admission-plugins=ServiceAccount`,
          `--allow-privileged=true`,
          `--enable-priority-and-fairness=false`,
          `--profiling=false`,
          ...(servingDir !== undefined ? await operatorAuditFlags(workDir, logDir) : []),
          `--v=1`,
        ],
        { logFile: apiLog, cwd: workDir },
      ),
      bins.kubeApiserver,
    );
    const adminTls = { ca: certs.servingCa, cert: certs.adminCert, key: certs.adminKey };
    await waitHealthy(
      "kube-apiserver",
      api.pid,
      apiLog,
      async () => (await httpGet(`${state.server}/readyz`, { tls: adminTls })).status === 200,
      120_000,
    );
    mark("apiserver");
    await writeKubeconfig(state.kubeconfig, state.server, certs);

    const kc = new KubeConfig();
    kc.loadFromFile(state.kubeconfig);
    const crdDir = options.crdDir ?? process.env["NATS_OPERATOR_HARNESS_CRDS"] ?? join(repoRoot, "crds");
    // Our CRDs, plus (without Knative) the local PingSource kind: functions
    // schedule work by writing PingSources.
    const localKinds = knativeDir === undefined ? await loadCrdFiles(join(repoRoot, "knative", "local")) : [];
    const crds = crdDir === "none" ? [] : [...(await loadCrdFiles(crdDir)), ...localKinds];
    await installCrds(kc, crds);
    note(`installed ${crds.length} CRDs`);
    mark("crds");

    if (withPods) {
      const kcmLog = join(logDir, "kube-controller-manager.log");
      track(
        "kube-controller-manager",
        spawnDetached(
          bins.kubeControllerManager,
          [
            `--kubeconfig=${state.kubeconfig}`,
            `--authentication-kubeconfig=${state.kubeconfig}`,
            `--authorization-kubeconfig=${state.kubeconfig}`,
            `--leader-elect=false`,
            `--secure-port=0`,
            `--service-account-private-key-file=${certs.saKey}`,
            `--root-ca-file=${certs.servingCa}`,
            `--use-service-account-credentials=false`,
            `--controllers=statefulset-controller,garbage-collector-controller,namespace-controller,endpointslice-controller,disruption-controller,serviceaccount-controller,serviceaccount-token-controller,replicaset-controller,deployment-controller,clusterrole-aggregation-controller,root-ca-certificate-publisher-controller,persistentvolumeclaim-protection-controller${
              // Knative Serving reads a revision's pods from core/v1 Endpoints.
              servingDir !== undefined ? ",endpoints-controller" : ""
            }${
              // A real kubelet registers its node tainted not-ready; this controller lifts the taint.
              // ... and the binder completes the claims the node's provisioner pre-binds.
              node !== undefined
                ? ",node-lifecycle-controller,persistentvolume-binder-controller,persistentvolume-protection-controller"
                : ""
            }`,
            `--concurrent-statefulset-syncs=5`,
            `--v=1`,
          ],
          { logFile: kcmLog, cwd: workDir },
        ),
        bins.kubeControllerManager,
      );
    }
    if (withPods && node !== undefined && nodeBin !== undefined && state.realNode !== undefined) {
      await startRealNode({
        runId,
        nodeName: NODE_NAME,
        dir: state.realNode.dir,
        logDir,
        bin: nodeBin,
        certs,
        apiPort,
        addresses: node.addresses,
        network: node.network,
        adminKubeconfig: state.kubeconfig,
        images: [
          ...natsServerImages({ [natsVersion]: bins.natsServer, ...bins.natsServers }),
          ...exporterImages(join(nodeBin, "prometheus-nats-exporter")),
        ],
        track,
        note,
      });
      mark("cluster");
    } else if (withPods) {
      state.kubeletPidFile = join(workDir, "kubelet-pods.json");
      state.hostsFile = defaultHostsFile;
      const kubeletConfig = join(workDir, "kubelet.json");
      await writeFile(
        kubeletConfig,
        JSON.stringify(
          {
            runId,
            workDir,
            kubeconfig: state.kubeconfig,
            nodeName: NODE_NAME,
            natsServer: bins.natsServer,
            natsServers: bins.natsServers,
            podSubnet: state.podSubnet,
            pidFile: state.kubeletPidFile,
            hostsFile: state.hostsFile,
            logFile: join(logDir, "kubelet.log"),
            ...(knativeDir !== undefined && podNetwork !== undefined
              ? {
                  knative: {
                    knativeBin: join(knativeDir, "bin"),
                    ...(servingDir !== undefined ? { servingBin: join(servingDir, "bin") } : {}),
                    operatorCheckout: repoRoot,
                    podNetwork,
                    apiService: { host: `${podNetwork}.129`, port: 443 },
                  },
                }
              : {}),
          },
          null,
          2,
        ),
      );
      const kubeletMain = join(repoRoot, "test", "harness", "kubelet", "main.ts");
      const kubelet = track(
        "kubelet",
        spawnDetached(process.execPath, [kubeletMain, kubeletConfig], {
          logFile: join(logDir, "kubelet.stdout.log"),
          cwd: repoRoot,
        }),
        kubeletMain,
      );
      const core = kc.makeApiClient(CoreV1Api);
      await waitHealthy(
        "kubelet",
        kubelet.pid,
        join(logDir, "kubelet.log"),
        async () => {
          const node = await core.readNode({ name: NODE_NAME });
          return (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
        },
        60_000,
      );
      for (const p of state.processes) {
        if (!isAlive(p.pid)) throw new Error(`${p.name} exited early; see ${logDir}`);
      }
      mark("cluster");
    }
    if (knativeDir !== undefined) {
      if (bins.kubectl === undefined) throw new Error("the Knative profile needs kubectl from test/infra/build.sh");
      await installKnativeEventing({
        kubectl: bins.kubectl,
        kubeconfig: state.kubeconfig,
        knativeDir,
        workDir,
        log: note,
        timeoutMs: 300_000,
      });
      mark("knative");
      if (servingDir !== undefined) {
        await installKnativeServing({
          kubectl: bins.kubectl,
          kubeconfig: state.kubeconfig,
          servingDir,
          workDir,
          log: note,
          timeoutMs: 300_000,
        });
        mark("serving");
      }
    }
    if (certManagerDir !== undefined) {
      const certManager = await startCertManager({
        dir: certManagerDir,
        kubeconfig: state.kubeconfig,
        logFile: join(logDir, "cert-manager.log"),
        cwd: workDir,
      });
      track("cert-manager", certManager.pid, certManager.expect);
      mark("cert-manager");
    }
    timings["controlPlaneStartMs"] = Date.now() - t1;
    note(`ready in ${timings["controlPlaneStartMs"]} ms: ${JSON.stringify(timings)}`);
    await writeFile(join(workDir, "state.json"), JSON.stringify(state, null, 2));
    return state;
  } catch (err) {
    note(`start failed: ${errorMessage(err)}`);
    await stopControlPlane(state, { keepWorkDir: true });
    throw new Error(`test harness: control plane failed to start (logs in ${logDir}): ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

async function mkdirp(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Stops every process by PID (reverse start order), then removes the work dir. */
export async function stopControlPlane(state: HarnessState, options: { keepWorkDir?: boolean } = {}): Promise<void> {
  for (const p of [...state.processes].reverse()) {
    // the kubelet stops its pods on SIGTERM, which can take a while
    await stopPid(p.pid, { expect: p.expect, timeoutMs: p.name === "kubelet" ? 40_000 : 10_000 });
  }
  // nats-server processes left behind by a kubelet that was killed
  if (state.kubeletPidFile !== undefined && existsSync(state.kubeletPidFile)) {
    try {
      const pids = JSON.parse(readFileSync(state.kubeletPidFile, "utf8")) as { pid: number; expect: string }[];
      await Promise.all(pids.map((p) => stopPid(p.pid, { expect: p.expect, timeoutMs: 5_000 })));
    } catch {
      // unreadable: nothing we can do
    }
  }
  if (state.hostsFile !== undefined) {
    try {
      removeHostsBlock(state.runId, state.workDir, state.hostsFile);
    } catch {
      // not writable: the block names a work dir that is about to vanish, so the next writer drops it
    }
  }
  // network namespaces left behind by a kubelet that was killed
  if (state.profile === "knative") await deleteRunNetworks(state.runId);
  if (state.realNode !== undefined) {
    await cleanUpRealNode(state.runId, state.realNode.dir);
    await deleteNodeNetwork(state.runId);
  }
  if (state.podSubnet !== undefined) releaseSubnet(state.podSubnet);
  if (state.profile === "knative") unlock("knative", state.workDir);
  if (options.keepWorkDir !== true) await rm(state.workDir, { recursive: true, force: true });
}
