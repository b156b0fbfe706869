// A control plane with a kubelet that runs real nats-servers, for the NatsCluster tests: the
// harness's when its global setup exported KUBECONFIG, else one started here (cluster profile,
// the NatsCluster and PingSource kinds only) and stopped at the end.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { startControlPlane, stopControlPlane } from "../../../harness/control-plane.ts";
import type { HarnessState } from "../../../harness/state.ts";
import { repoRoot } from "../../../harness/paths.ts";
import { createKube, type Kube } from "../../../../shared/kube/client.ts";
import { createTransport, type KubeTransport } from "../../../../shared/kube/transport.ts";
import { knativeDir } from "../../../../shared/eventing/manifests.ts";

const crdFiles = ["cluster.nats-operator.io_natsclusters.yaml"];

export interface Environment {
  transport: KubeTransport;
  kube: Kube;
  namespace(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

/** The API server refuses `pattern` beside `x-kubernetes-int-or-string`; quantities keep their anyOf. */
function withoutIntOrStringPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIntOrStringPatterns);
  if (typeof node !== "object" || node === null) return node;
  const record = node as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, withoutIntOrStringPatterns(v)]));
  if (record["x-kubernetes-int-or-string"] === true) delete copy["pattern"];
  return copy;
}

async function apply(transport: KubeTransport, path: string, body: unknown): Promise<void> {
  await transport.request("PATCH", path, { body, contentType: "application/apply-patch+yaml", query: { fieldManager: "cluster-tests", force: true } });
}

async function waitEstablished(transport: KubeTransport, name: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const got = (await transport.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (got.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`CRD ${name} not Established`);
}

export async function startEnvironment(): Promise<Environment> {
  let own: HarnessState | undefined;
  if (!process.env.KUBECONFIG) {
    // No CRDs through the harness (its typed client drops the int-or-string markers); they are applied raw below.
    const crdDir = await mkdtemp(join(tmpdir(), "cluster-crds-"));
    try {
      own = await startControlPlane({ profile: "cluster", crdDir, log: () => undefined });
    } finally {
      await rm(crdDir, { recursive: true, force: true });
    }
    process.env.KUBECONFIG = own.kubeconfig;
  }
  const transport = await createTransport();
  const kube = createKube(transport);
  for (const file of crdFiles) {
    const crd = withoutIntOrStringPatterns(parse(await readFile(join(repoRoot, "crds", file), "utf8"))) as { metadata: { name: string } };
    await apply(transport, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, crd);
    await waitEstablished(transport, crd.metadata.name);
  }
  const pingCrd = parse(await readFile(new URL("local/pingsource-crd.yaml", knativeDir), "utf8")) as { metadata: { name: string } };
  await apply(transport, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${pingCrd.metadata.name}`, pingCrd);
  await waitEstablished(transport, pingCrd.metadata.name);
  const made: string[] = [];
  return {
    transport,
    kube,
    async namespace(prefix) {
      const ns = (await transport.request("POST", "/api/v1/namespaces", {
        body: { apiVersion: "v1", kind: "Namespace", metadata: { generateName: `${prefix}-` } },
      })) as { metadata: { name: string } };
      made.push(ns.metadata.name);
      return ns.metadata.name;
    },
    async stop() {
      if (own) {
        await stopControlPlane(own);
        delete process.env.KUBECONFIG;
      } else {
        for (const ns of made) await transport.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => undefined);
      }
    },
  };
}
