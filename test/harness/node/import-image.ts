// Images built outside the node's start (the operator image from the Dockerfile,
// test/infra/build-image.sh) brought onto a running real node on request:
// `ctr images import` into containerd's k8s.io namespace, where the kubelet
// looks, under the name the archive carries (its org.opencontainers.image.ref.name
// or io.containerd.image.name), so a pod that names that image with
// imagePullPolicy IfNotPresent or Never runs it with no registry.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { HarnessState } from "../state.ts";
import { ctrCommand } from "./ctr.ts";

const run = promisify(execFile);

/**
 * Imports the OCI (or Docker) image archive `archive` into the real node of the harness `state`
 * and unpacks it for the kubelet; returns the names containerd then holds for it.
 */
export async function importImage(state: HarnessState, archive: string): Promise<string[]> {
  const { command, args } = ctrCommand(state);
  const { stdout } = await run(command, [...args, "images", "import", archive], {
    timeout: 5 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  // ctr reports the manifests it imported by digest; the names are the images pointing at them.
  const digests = new Set(stdout.match(/sha256:[0-9a-f]{64}/g) ?? []);
  const listed = (await run(command, [...args, "images", "list"])).stdout.split("\n").slice(1);
  return listed
    .map((line) => line.split(/\s+/))
    .filter(([name, , digest]) => name !== undefined && !name.startsWith("sha256:") && digests.has(digest ?? ""))
    .map(([name]) => name ?? "")
    .sort();
}
