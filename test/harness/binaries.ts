// The real binaries, built by test/infra/build.sh and always used by explicit
// path: never looked up on PATH, where an old nats-server may sit.
import { spawn, execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./paths.ts";

const execFileAsync = promisify(execFile);

export const MIN_NATS_SERVER_VERSION = "2.15.0";

export interface Binaries {
  dir: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  etcd: string;
  /** Absent if the build did not produce it. */
  kubectl?: string;
  natsServer: string;
  /** Other nats-server versions by version ("2.15.3"), run for a pod whose image tag names one. */
  natsServers: Record<string, string>;
}

/**
 * Runs the idempotent build script (a no-op on a cache hit) and returns the
 * binaries it reports. Build progress goes to `progress` (default: stderr).
 */
export async function ensureBinaries(progress: (line: string) => void = stderrLine): Promise<Binaries> {
  const binaries = resolveBinaries(await runBuildScript("build.sh", "test-infra: bin ", progress));
  const next = await runBuildScript("build-nats-next.sh", "test-infra: nats-next ", progress);
  return { ...binaries, natsServers: { [await checkNatsServer(next)]: next } };
}

/**
 * Builds Knative Eventing (test/infra/build-knative.sh, cached) and returns
 * its directory: bin/<command> and config/ (the module's own manifests).
 */
export async function ensureKnative(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-knative.sh", "test-infra: knative ", progress);
}

/**
 * Builds Knative Serving and Traefik (test/infra/build-serving.sh, cached) and
 * returns its directory: bin/<command>, bin/traefik and config/ (Serving's core
 * manifests, the networking and caching CRDs).
 */
export async function ensureServing(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-serving.sh", "test-infra: serving ", progress);
}

/**
 * Builds the real node (test/infra/build-node.sh, cached; installs the Debian packages it runs
 * with) and returns its bin directory: kubelet, kube-proxy, kube-scheduler, containerd, its runc
 * shim, ctr, coredns, kube-router and pause.
 */
export async function ensureNode(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-node.sh", "test-infra: node ", progress);
}

/**
 * Builds the helm CLI (test/infra/build-helm.sh, cached) and returns the path
 * of the binary.
 */
export async function ensureHelm(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-helm.sh", "test-infra: helm ", progress);
}

/**
 * Builds the cert-manager controller (test/infra/build-cert-manager.sh, cached) and returns its
 * directory: the `cert-manager` binary and crds/ (the module's own CRDs).
 */
export async function ensureCertManager(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-cert-manager.sh", "test-infra: cert-manager ", progress);
}

/**
 * Builds the nsc CLI (test/infra/build-nsc.sh, cached) and returns the path
 * of the binary.
 */
export async function ensureNsc(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-nsc.sh", "test-infra: nsc ", progress);
}

/**
 * Builds kube-state-metrics (test/infra/build-kube-state-metrics.sh, cached) and returns the path
 * of the binary.
 */
export async function ensureKubeStateMetrics(progress: (line: string) => void = stderrLine): Promise<string> {
  return runBuildScript("build-kube-state-metrics.sh", "test-infra: kube-state-metrics ", progress);
}

/**
 * Builds the operator image from the Dockerfile (test/infra/build-image.sh: buildah, on the base
 * images test/infra/build-image-bases.sh makes here; cached) and returns its OCI archive and the
 * name it carries, the chart's default image (ghcr.io/nats-operator/nats-operator:<appVersion>).
 */
export async function ensureOperatorImage(
  progress: (line: string) => void = stderrLine,
): Promise<{ archive: string; name: string }> {
  const archive = await runBuildScript("build-image.sh", "test-infra: operator-image ", progress);
  return { archive, name: (await readFile(join(dirname(archive), "name"), "utf8")).trim() };
}

function stderrLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Runs test/infra/<script> and returns the value of its last line starting with `marker`. */
async function runBuildScript(name: string, marker: string, progress: (line: string) => void): Promise<string> {
  const script = join(repoRoot, "test", "infra", name);
  if (!existsSync(script)) throw new Error(`test harness: ${script} is missing`);
  const lines: string[] = [];
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn("bash", [script], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let pending = "";
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString("utf8");
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        progress(line);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("close", (status) => {
      if (pending !== "") {
        lines.push(pending);
        progress(pending);
      }
      resolve(status ?? 1);
    });
  });
  if (code !== 0) {
    throw new Error(`test harness: ${script} failed with exit code ${code}:\n${lines.slice(-30).join("\n")}`);
  }
  const found = [...lines].reverse().find((l) => l.startsWith(marker));
  if (found === undefined) throw new Error(`test harness: ${script} did not print "${marker}<dir>"`);
  return found.slice(marker.length).trim();
}

/** The binaries in `dir`; throws if a required one is missing. */
export function resolveBinaries(dir: string): Binaries {
  const need = (name: string): string => {
    const path = join(dir, name);
    if (!existsSync(path)) throw new Error(`test harness: ${path} is missing (incomplete build in ${dir})`);
    return path;
  };
  const kubectl = join(dir, "kubectl");
  return {
    dir,
    kubeApiserver: need("kube-apiserver"),
    kubeControllerManager: need("kube-controller-manager"),
    etcd: need("etcd"),
    ...(existsSync(kubectl) ? { kubectl } : {}),
    natsServer: need("nats-server"),
    natsServers: {},
  };
}

/** "nats-server: v2.15.2" -> "2.15.2". */
export function parseNatsVersion(output: string): string | undefined {
  return /v?(\d+\.\d+\.\d+(?:[-+][\w.-]+)?)/.exec(output)?.[1];
}

/** Numeric comparison of the x.y.z part; pre-release suffixes are ignored. */
export function compareVersions(a: string, b: string): number {
  const core = (v: string): number[] => (v.split(/[-+]/)[0] ?? "").split(".").map(Number);
  const pa = core(a);
  const pb = core(b);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Throws unless `version` is at least MIN_NATS_SERVER_VERSION. */
export function assertNatsVersion(version: string | undefined, source: string): string {
  if (version === undefined) throw new Error(`test harness: cannot read a version from ${source}`);
  if (compareVersions(version, MIN_NATS_SERVER_VERSION) < 0) {
    throw new Error(
      `test harness: ${source} is nats-server ${version}, but >= ${MIN_NATS_SERVER_VERSION} is required ` +
        `(features of 2.11+ are silently ignored by older servers)`,
    );
  }
  return version;
}

/** Runs `<natsServer> --version` and checks it; returns the version. */
export async function checkNatsServer(natsServer: string): Promise<string> {
  const { stdout, stderr } = await execFileAsync(natsServer, ["--version"], { timeout: 10_000 });
  return assertNatsVersion(parseNatsVersion(`${stdout}${stderr}`), natsServer);
}
