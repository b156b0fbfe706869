// A container's environment, resolved as the kubelet does: envFrom first,
// then env in order, with $(VAR) references to earlier variables expanded.
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { ObjectSource } from "./objects.ts";
import { fieldRefValue, resourceFieldRefValue, type PodAddresses } from "./fieldref.ts";

/** Expands $(NAME) from `env`; $$(NAME) stays literal $(NAME); unknown references stay as they are. */
export function expandVars(input: string, env: Record<string, string>): string {
  return input.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string | undefined) => {
    if (whole === "$$") return "$";
    return name !== undefined && Object.hasOwn(env, name) ? (env[name] ?? whole) : whole;
  });
}

export async function resolveEnv(
  pod: V1Pod,
  container: V1Container,
  addr: PodAddresses,
  objects: ObjectSource,
): Promise<Record<string, string>> {
  const ns = pod.metadata?.namespace ?? "default";
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? "";
    if (from.configMapRef !== undefined) {
      const cm = await objects.configMap(ns, from.configMapRef.name ?? "");
      if (cm === undefined && from.configMapRef.optional !== true)
        throw new Error(`configmap ${from.configMapRef.name} not found`);
      for (const [k, v] of Object.entries(cm?.data ?? {})) env[prefix + k] = v;
    }
    if (from.secretRef !== undefined) {
      const s = await objects.secret(ns, from.secretRef.name ?? "");
      if (s === undefined && from.secretRef.optional !== true)
        throw new Error(`secret ${from.secretRef.name} not found`);
      for (const [k, v] of Object.entries(s?.data ?? {})) env[prefix + k] = Buffer.from(v, "base64").toString("utf8");
    }
  }
  for (const e of container.env ?? []) {
    if (e.valueFrom === undefined) {
      env[e.name] = expandVars(e.value ?? "", env);
      continue;
    }
    const vf = e.valueFrom;
    if (vf.fieldRef !== undefined) {
      env[e.name] = fieldRefValue(pod, vf.fieldRef, addr);
    } else if (vf.resourceFieldRef !== undefined) {
      const ref = vf.resourceFieldRef;
      const target = ref.containerName ? pod.spec?.containers.find((c) => c.name === ref.containerName) : container;
      env[e.name] = resourceFieldRefValue(target, ref);
    } else if (vf.configMapKeyRef !== undefined) {
      const ref = vf.configMapKeyRef;
      const value = (await objects.configMap(ns, ref.name ?? ""))?.data?.[ref.key];
      if (value === undefined && ref.optional !== true)
        throw new Error(`configmap key ${ref.name}/${ref.key} not found`);
      if (value !== undefined) env[e.name] = value;
    } else if (vf.secretKeyRef !== undefined) {
      const ref = vf.secretKeyRef;
      const value = (await objects.secret(ns, ref.name ?? ""))?.data?.[ref.key];
      if (value === undefined && ref.optional !== true) throw new Error(`secret key ${ref.name}/${ref.key} not found`);
      if (value !== undefined) env[e.name] = Buffer.from(value, "base64").toString("utf8");
    }
  }
  return env;
}
