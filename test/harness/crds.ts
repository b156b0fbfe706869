// Installing CustomResourceDefinitions by server-side apply and waiting until
// the API server reports them Established.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ApiextensionsV1Api, KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { rawRequest } from "./raw-api.ts";
import { waitFor } from "./wait.ts";

export const FIELD_MANAGER = "nats-operator-harness";

/** Non-enumerable property naming the file a CRD was read from. */
const sourceFile = Symbol("sourceFile");

function apiErrorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

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
      if (doc.errors.length > 0) throw new Error(`${join(dir, name)}: ${doc.errors[0]?.message ?? ""}`);
      const obj = doc.toJS() as KubernetesObject | null;
      if (obj !== null && typeof obj === "object" && obj.kind === "CustomResourceDefinition") {
        Object.defineProperty(obj, sourceFile, { value: join(dir, name), enumerable: false });
        crds.push(obj);
      }
    }
  }
  return crds;
}

/** Applies the CRDs (server-side apply, forced) and waits until each is Established. */
export async function installCrds(kc: KubeConfig, crds: KubernetesObject[], timeoutMs = 60_000): Promise<void> {
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const body = { ...crd, apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" };
    try {
      const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(crd.metadata?.name ?? "")}`;
      await rawRequest(
        kc,
        "PATCH",
        `${path}?fieldManager=${FIELD_MANAGER}&force=true`,
        body,
        "application/apply-patch+yaml",
      );
    } catch (err) {
      const from = (crd as unknown as Record<symbol, string | undefined>)[sourceFile];
      throw new Error(
        `kube-apiserver refused CRD ${crd.metadata?.name ?? "?"}${from ? ` (${from})` : ""}: ${apiErrorMessage(err)}`,
        { cause: err },
      );
    }
  }
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    await waitFor(
      `CRD ${name} to be Established`,
      async () => {
        const got = await ext.readCustomResourceDefinition({ name });
        const conds = got.status?.conditions ?? [];
        const bad = conds.find((c) => c.type === "NamesAccepted" && c.status === "False");
        if (bad !== undefined) throw new Error(`CRD ${name} names not accepted: ${bad.message ?? ""}`);
        return conds.some((c) => c.type === "Established" && c.status === "True");
      },
      { timeoutMs },
    );
  }
}
