// A fresh namespace per test file:
//
//   const ns = useNamespace("crd");   // at the top level of a test file
//   it("...", async () => { ... ns.name ... ns.kc ... });
//
// Created in beforeAll, deleted (in the background) in afterAll. The namespace
// controller then deletes what is left, and the kubelet stops its pods.
import { afterAll, beforeAll } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { kubeConfig } from "./kube.ts";
import { waitFor } from "./wait.ts";

export interface TestNamespace {
  /** Valid inside tests (after beforeAll). */
  readonly name: string;
  readonly kc: KubeConfig;
}

export async function createNamespace(kc: KubeConfig, prefix = "test"): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`.toLowerCase().slice(0, 63);
  await kc.makeApiClient(CoreV1Api).createNamespace({
    body: { metadata: { name, labels: { "nats-operator.io/test-namespace": "true" } } },
  });
  return name;
}

export async function deleteNamespace(
  kc: KubeConfig,
  name: string,
  options: { wait?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.deleteNamespace({ name, body: { propagationPolicy: "Background" } });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return;
    throw err;
  }
  if (options.wait === true) {
    await waitFor(
      `namespace ${name} to be deleted`,
      async () => {
        try {
          await core.readNamespace({ name });
          return false;
        } catch (err) {
          if ((err as { code?: number }).code === 404) return true;
          throw err;
        }
      },
      { timeoutMs: options.timeoutMs ?? 120_000 },
    );
  }
}

export function useNamespace(prefix = "test", options: { waitForDeletion?: boolean } = {}): TestNamespace {
  let name: string | undefined;
  let kc: KubeConfig | undefined;
  beforeAll(async () => {
    kc = kubeConfig();
    name = await createNamespace(kc, prefix);
  });
  afterAll(async () => {
    if (kc !== undefined && name !== undefined && process.env["NATS_OPERATOR_HARNESS_KEEP"] !== "1") {
      await deleteNamespace(kc, name, { wait: options.waitForDeletion === true });
    }
  });
  return {
    get name(): string {
      if (name === undefined) throw new Error("useNamespace: the namespace exists only inside tests (after beforeAll)");
      return name;
    },
    get kc(): KubeConfig {
      if (kc === undefined) throw new Error("useNamespace: the KubeConfig exists only inside tests (after beforeAll)");
      return kc;
    },
  };
}
