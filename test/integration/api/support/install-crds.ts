// Installs our generated CRDs exactly as generated (server-side apply of the
// raw JSON) and waits until the API server serves them.
import type { KubeConfig } from "@kubernetes/client-node";
import { customResourceDefinition, crdName } from "../../../../shared/api/codegen/crd.ts";
import { KIND_DEFINITIONS } from "../../../../shared/api/definitions.ts";
import { KIND_NAMES } from "../../../../shared/api/kinds.ts";
import { rawRequest } from "./raw-client.ts";

const FIELD_MANAGER = "nats-operator-api-tests";

const established = async (kc: KubeConfig, name: string): Promise<boolean> => {
  const res = await rawRequest(kc, "GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  if (res.status !== 200) return false;
  const conditions = (JSON.parse(res.body) as { status?: { conditions?: { type: string; status: string }[] } }).status
    ?.conditions;
  return (conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
};

export const installCrds = async (kc: KubeConfig, timeoutMs = 60_000): Promise<void> => {
  for (const kind of KIND_NAMES) {
    const def = KIND_DEFINITIONS[kind];
    const name = crdName(def);
    const res = await rawRequest(
      kc,
      "PATCH",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}?fieldManager=${FIELD_MANAGER}&force=true`,
      customResourceDefinition(def),
      "application/apply-patch+yaml",
    );
    if (res.status >= 300) throw new Error(`installing CRD ${name}: HTTP ${res.status}: ${res.body}`);
  }
  const deadline = Date.now() + timeoutMs;
  for (const kind of KIND_NAMES) {
    const name = crdName(KIND_DEFINITIONS[kind]);
    while (!(await established(kc, name))) {
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
};
