// Installing CustomResourceDefinitions by server-side apply and waiting until
// the API server reports them Established.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ApiextensionsV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { waitFor } from "./wait.ts";

export const FIELD_MANAGER = "nats-operator-harness";

/** Every CustomResourceDefinition in `dir/*.yaml|yml|json`; [] when the directory is absent or empty. */
export async function loadCrdFiles(dir: string): Promise<KubernetesObject[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.(ya?ml|json)$/.test(n)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const crds: KubernetesObject[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), "utf8");
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${join(dir, name)}: ${doc.errors[0]!.message}`);
      const obj = doc.toJS() as KubernetesObject | null;
      if (obj !== null && typeof obj === "object" && obj.kind === "CustomResourceDefinition") crds.push(obj);
    }
  }
  return crds;
}

/** Applies the CRDs (server-side apply, forced) and waits until each is Established. */
export async function installCrds(kc: KubeConfig, crds: KubernetesObject[], timeoutMs = 60_000): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const body = { ...crd, apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" };
    await objects.patch(body, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    await waitFor(
      async () => {
        const got = await ext.readCustomResourceDefinition({ name });
        const conds = got.status?.conditions ?? [];
        const bad = conds.find((c) => c.type === "NamesAccepted" && c.status === "False");
        if (bad !== undefined) throw new Error(`CRD ${name} names not accepted: ${bad.message ?? ""}`);
        return conds.some((c) => c.type === "Established" && c.status === "True");
      },
      { timeoutMs, description: `CRD ${name} to be Established` },
    );
  }
}
