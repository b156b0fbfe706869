// What operator tests and benchmarks need from a control plane: our
// Kubernetes client and fresh namespaces, removed at the end. Tests use the
// one the harness's global setup started (KUBECONFIG); a benchmark, run on
// its own, asks for a profile and gets a control plane of its own, stopped
// by stop(). Either way the CRDs and the local PingSource kind are installed.
import { startControlPlane, stopControlPlane } from "../../harness/control-plane.ts";
import type { HarnessState, Profile } from "../../harness/state.ts";
import { createKube, type Kube } from "../../../shared/kube/client.ts";
import { createTransport, type KubeTransport } from "../../../shared/kube/transport.ts";

export interface Environment {
  transport: KubeTransport;
  kube: Kube;
  namespace(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * On the real node every test namespace enforces the restricted Pod Security Standard, as a
 * platform team's namespaces do: a pod the operator renders that breaks it is refused for real.
 */
function namespaceLabels(): Record<string, string> {
  const labels: Record<string, string> = { "nats-operator.io/test-namespace": "true" };
  if (process.env["NATS_OPERATOR_HARNESS_NODE"] === "real") {
    labels["pod-security.kubernetes.io/enforce"] = "restricted";
    labels["pod-security.kubernetes.io/enforce-version"] = "latest";
  }
  return labels;
}

export async function startEnvironment(options: { profile?: Profile } = {}): Promise<Environment> {
  let own: HarnessState | undefined;
  if (!process.env.KUBECONFIG) {
    if (!options.profile) {
      throw new Error(
        "no control plane: run integration tests with `npm run test:integration` (jest.integration.config.js starts one)",
      );
    }
    own = await startControlPlane({ profile: options.profile, log: () => undefined });
    process.env.KUBECONFIG = own.kubeconfig;
  }
  const transport = await createTransport();
  const made: string[] = [];
  return {
    transport,
    kube: createKube(transport),
    async namespace(prefix) {
      const ns = (await transport.request("POST", "/api/v1/namespaces", {
        body: {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { generateName: `${prefix}-`, labels: namespaceLabels() },
        },
      })) as { metadata: { name: string } };
      made.push(ns.metadata.name);
      return ns.metadata.name;
    },
    async stop() {
      if (own) {
        await stopControlPlane(own);
        delete process.env.KUBECONFIG;
        return;
      }
      for (const ns of made) await transport.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => undefined);
    },
  };
}
