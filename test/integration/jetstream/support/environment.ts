// The API server for the JetStream tests: the harness's when its global
// setup exported KUBECONFIG, else one started here (apiserver profile, our
// CRDs) and stopped in teardown.
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

const ourCrds = [
  "nats-operator.io_natsconnections.yaml",
  "nats-operator.io_natsreferencegrants.yaml",
  "jetstream.nats-operator.io_natsstreams.yaml",
  "jetstream.nats-operator.io_natsconsumers.yaml",
  "jetstream.nats-operator.io_natskeyvalues.yaml",
  "jetstream.nats-operator.io_natsobjectstores.yaml",
];

export interface Environment {
  transport: KubeTransport;
  kube: Kube;
  namespace(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startEnvironment(): Promise<Environment> {
  let own: HarnessState | undefined;
  if (!process.env.KUBECONFIG) {
    // The harness installs no CRDs here (its typed client drops x-kubernetes-* keys); see installOurCrds.
    const emptyDir = await mkdtemp(join(tmpdir(), "sync-stream-crds-"));
    try {
      own = await startControlPlane({ profile: "apiserver", crdDir: emptyDir, log: () => undefined });
    } finally {
      await rm(emptyDir, { recursive: true, force: true });
    }
    process.env.KUBECONFIG = own.kubeconfig;
  }
  const transport = await createTransport();
  const kube = createKube(transport);
  await installOurCrds(transport);
  await installPingSourceKind(transport);
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

/** Only the kinds sync-stream reads, applied as generated (raw server-side apply). */
async function installOurCrds(transport: KubeTransport): Promise<void> {
  const names: string[] = [];
  for (const file of ourCrds) {
    const crd = parse(await readFile(join(repoRoot, "crds", file), "utf8")) as { metadata: { name: string } };
    names.push(crd.metadata.name);
    await transport.request("PATCH", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
      body: crd,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: "sync-stream-tests", force: true },
    });
  }
  for (const name of names) {
    for (let i = 0; ; i++) {
      const got = (await transport.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      if (got.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (i > 300) throw new Error(`CRD ${name} not Established`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The local PingSource CRD, so the drift schedule can be written as on Knative. */
async function installPingSourceKind(transport: KubeTransport): Promise<void> {
  const crd = parse(await readFile(new URL("local/pingsource-crd.yaml", knativeDir), "utf8")) as { metadata: { name: string } };
  await transport.request("PATCH", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
    body: crd,
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: "sync-stream-tests", force: true },
  });
  for (let i = 0; i < 50; i++) {
    try {
      await transport.request("GET", "/apis/sources.knative.dev/v1/pingsources");
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
