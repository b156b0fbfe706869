// Knative Eventing on the harness: its own manifests (the module's config/
// directory, unchanged) applied with the harness's kubectl, then every
// Deployment in knative-eventing waited for. The kubelet runs the pods as the
// binaries built by test/infra/build-knative.sh (see kubelet/workloads.ts).
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { errorMessage, waitFor } from "./wait.ts";

const run = promisify(execFile);

/** The parts of Knative Eventing installed: core, the in-memory channel, the channel-based Broker. */
export const KNATIVE_EVENTING_PARTS = ["core", "channels/in-memory-channel", "brokers/mt-channel-broker"] as const;

/**
 * ConfigMaps a Knative release generates at build time (their images are
 * resolved by ko), which the module's config/ directory refers to but lacks.
 * Here they name images that are not built, so such pods would be simulated.
 */
const RELEASE_CONFIGMAPS = `
apiVersion: v1
kind: ConfigMap
metadata: { name: eventing-transformations-images, namespace: knative-eventing }
data:
  transform-jsonata: harness.invalid/knative/transform-jsonata
---
apiVersion: v1
kind: ConfigMap
metadata: { name: eventing-integrations-images, namespace: knative-eventing }
data:
  timer-source: harness.invalid/knative/timer-source
  aws-s3-source: harness.invalid/knative/aws-s3-source
  aws-sqs-source: harness.invalid/knative/aws-sqs-source
  aws-ddb-streams-source: harness.invalid/knative/aws-ddb-streams-source
  log-sink: harness.invalid/knative/log-sink
  aws-s3-sink: harness.invalid/knative/aws-s3-sink
  aws-sqs-sink: harness.invalid/knative/aws-sqs-sink
  aws-sns-sink: harness.invalid/knative/aws-sns-sink
`;

export async function installKnativeEventing(options: {
  kubectl: string;
  kubeconfig: string;
  knativeDir: string;
  workDir: string;
  log: (line: string) => void;
  timeoutMs: number;
}): Promise<void> {
  const { kubectl, kubeconfig, knativeDir, log } = options;
  const deadline = Date.now() + options.timeoutMs;
  const kube = (...args: string[]): Promise<{ stdout: string }> =>
    run(kubectl, [`--kubeconfig=${kubeconfig}`, ...args], { maxBuffer: 16 * 1024 * 1024 });
  const config = (part: string): string => join(knativeDir, "config", part);

  await kube("apply", "--server-side", "--force-conflicts", "-f", config("core/resources"));
  await kube("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s");
  await kube("apply", "--server-side", "-f", config("core/100-namespace.yaml"));
  const releaseConfigMaps = join(options.workDir, "knative-release-configmaps.yaml");
  await writeFile(releaseConfigMaps, RELEASE_CONFIGMAPS);
  await kube("apply", "--server-side", "-f", releaseConfigMaps);
  const files = KNATIVE_EVENTING_PARTS.flatMap((part) => ["-R", "-f", config(part)]);
  // Objects that need another to exist first (a RoleBinding's namespace, a
  // webhook's Service) succeed on a later pass.
  await waitFor(
    "Knative Eventing applied",
    async () => {
      try {
        await kube("apply", "--server-side", "--force-conflicts", ...files);
        return true;
      } catch (err) {
        log(`knative: apply not complete yet: ${errorMessage(err).split("\n").slice(-3).join(" ")}`);
        return false;
      }
    },
    { timeoutMs: Math.max(1_000, deadline - Date.now()), intervalMs: 2_000 },
  );
  log("knative: manifests applied; waiting for its Deployments");
  const seconds = Math.max(1, Math.round((deadline - Date.now()) / 1000));
  await kube(
    "wait",
    "--for=condition=Available",
    "deployment",
    "--all",
    "-n",
    "knative-eventing",
    `--timeout=${seconds}s`,
  );
}
